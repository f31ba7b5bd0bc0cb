import PodcastKit

/// How a finished batch is summed up: one line, and the contract's JSON document.
struct DownloadRendering {
    let results: [DownloadResult]
    let elapsed: Duration

    /// `downloaded 2, skipped 1, failed 1: 96.5 MiB in 3.2 s`, with `paused N` and `cancelled N`
    /// when there are any; the size is what was fetched.
    var summary: String {
        let bytes = results.reduce(Int64(0)) { $0 + $1.bytes }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let tenths = Int((seconds * 10).rounded())
        return Self.counts(results) + ": \(ByteCount.text(bytes)) in \(tenths / 10).\(tenths % 10) s"
    }

    /// `downloaded 2, skipped 1, failed 1`, then `paused N` and `cancelled N` when there are any.
    static func counts(_ results: [DownloadResult]) -> String {
        let count = { (state: DownloadResult.State) in results.count { $0.state == state } }
        let always = [DownloadResult.State.downloaded, .skipped, .failed].map { "\($0.rawValue) \(count($0))" }
        let some = [DownloadResult.State.paused, .cancelled].filter { count($0) > 0 }.map { "\($0.rawValue) \(count($0))" }
        return (always + some).joined(separator: ", ")
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
                ("bytes", .int(Int(result.fileSize ?? result.bytes))),
                ("fetched", .int(Int(result.bytes))),
                ("error", .string(result.error)),
            ])
        })
    }
}
