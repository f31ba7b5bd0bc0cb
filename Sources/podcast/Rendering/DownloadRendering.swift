import PodcastKit

/// How a finished batch is summed up: one line, and the contract's JSON document.
struct DownloadRendering {
    let results: [DownloadResult]
    let elapsed: Duration

    /// `downloaded 2, skipped 1, failed 1: 96.5 MB in 3.2 s`.
    var summary: String {
        let count = { (state: DownloadResult.State) in results.filter { $0.state == state }.count }
        let bytes = results.reduce(Int64(0)) { $0 + $1.bytes }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let tenths = Int((seconds * 10).rounded())
        return "downloaded \(count(.downloaded)), skipped \(count(.skipped)), failed \(count(.failed)): "
            + "\(ByteCount.text(bytes)) in \(tenths / 10).\(tenths % 10) s"
    }

    /// `{"results": [{"number", "guid", "title", "state", "path", "bytes", "error"}]}`.
    var json: JSONValue {
        .object([("results", Self.json(results))])
    }

    /// The `results` array: `[{"number", "guid", "title", "state", "path", "bytes", "error"}]`.
    static func json(_ results: [DownloadResult]) -> JSONValue {
        .array(results.map { result in
            .object([
                ("number", .int(result.item.number)),
                ("guid", .string(result.item.entry.guid)),
                ("title", .string(result.item.entry.title)),
                ("state", .string(result.state.rawValue)),
                ("path", .string(result.path)),
                ("bytes", .int(Int(result.bytes))),
                ("error", .string(result.error)),
            ])
        })
    }
}
