import PodcastKit

/// How `status` shows the progress buffer: the worker, one table row per download, what to do
/// about interrupted ones, and the recent batches; or the contract's JSON document.
struct StatusRendering {
    let status: DownloadStatus
    let paths: PodcastPaths

    /// The text, each line at most `width` columns (nil: no limit).
    func lines(width: Int?) -> [String] {
        var lines = [status.worker.map { "worker: running (pid \($0)); log: \(paths.workerLog)" } ?? "worker: not running"]
        if status.downloads.isEmpty {
            lines.append("no downloads")
        } else {
            lines += table.render(width: width).lines
        }
        return lines + footer
    }

    /// What follows the table: what to do about interrupted downloads, then the batches.
    var footer: [String] {
        notices + status.batches.map { BatchRendering(batch: $0).line }
    }

    private var table: TextTable {
        let columns = [
            TextTable.Column("State"),
            TextTable.Column("Done", alignment: .right),
            TextTable.Column("Size", alignment: .right),
            TextTable.Column("Speed", alignment: .right, droppable: true),
            TextTable.Column("ETA", alignment: .right, droppable: true),
            TextTable.Column("Podcast", minWidth: 8, shrinkStage: 2),
            TextTable.Column("Title", minWidth: 16, shrinkStage: 1),
        ]
        let rows = status.downloads.map { entry in
            let record = entry.record
            let total = record.resume.total ?? record.enclosureLength
            let percent = total.map { $0 > 0 ? "\(min(100, record.bytes * 100 / $0))%" : "" } ?? ""
            let size = total.map { "\(ByteCount.text(record.bytes)) of \(ByteCount.text($0))" } ?? ByteCount.text(record.bytes)
            let speed = Self.speed(of: entry)
            let eta = speed.flatMap { speed in
                total.flatMap { $0 > record.bytes ? EpisodesRendering.clock(Int(Double($0 - record.bytes) / speed)) : nil }
            }
            return [
                entry.state.rawValue, percent, size, speed.map { "\(ByteCount.text(Int64($0)))/s" } ?? "", eta ?? "",
                record.podcastTitle, record.title + (entry.state == .failed ? " (\(record.error ?? "failed"))" : ""),
            ]
        }
        return TextTable(columns: columns, rows: rows)
    }

    /// What to do about interrupted downloads, one line per process that left them.
    private var notices: [String] {
        status.interruptedBy.map { pid in
            guard let pid else {
                return "queued downloads wait for a background worker that is not running: run podcast resume (or podcast resume --background)"
            }
            let who = pid == status.lastWorker ? "the worker (pid \(pid))" : "process \(pid)"
            return "\(who) stopped without finishing: run podcast resume (or podcast resume --background)"
        }
    }

    /// Bytes per second of a running download, when known and positive.
    private static func speed(of entry: DownloadStatus.Entry) -> Double? {
        guard entry.state == .downloading, let speed = entry.record.speed, speed > 0 else { return nil }
        return speed
    }

    /// `{"downloads": [{"guid", "title", "podcast", "state", "bytes", "total", "path", "error", "speed"}],
    /// "worker": {"running", "pid", "log"}, "batches": [{"id", "created", "finished", "pending",
    /// "downloaded", "skipped", "failed", "summary"}]}`.
    var json: JSONValue {
        .object([
            ("downloads", .array(status.downloads.map { entry in
                let record = entry.record
                return .object([
                    ("guid", .string(record.guid)),
                    ("title", .string(record.title)),
                    ("podcast", .string(record.podcastTitle)),
                    ("state", .string(entry.state.rawValue)),
                    ("bytes", .int(Int(record.bytes))),
                    ("total", .int((record.resume.total ?? record.enclosureLength).map(Int.init))),
                    ("path", .string(entry.state == .downloaded ? record.path : nil)),
                    ("error", .string(entry.state == .failed || entry.state == .paused ? record.error : nil)),
                    ("speed", .int(Self.speed(of: entry).map { Int($0) })),
                ])
            })),
            ("worker", .object([
                ("running", .bool(status.worker != nil)),
                ("pid", .int((status.worker ?? status.lastWorker).map(Int.init))),
                ("log", .string(paths.workerLog)),
            ])),
            ("batches", .array(status.batches.map { batch in
                .object([
                    ("id", .int(batch.id)),
                    ("created", .string(UTCDate.iso8601(batch.created))),
                    ("finished", .string(batch.finished.map(UTCDate.iso8601))),
                    ("pending", .int(batch.pending)),
                    ("downloaded", .int(batch.count(.downloaded))),
                    ("skipped", .int(batch.count(.skipped))),
                    ("failed", .int(batch.count(.failed))),
                    ("paused", .int(batch.count(.paused))),
                    ("cancelled", .int(batch.count(.cancelled))),
                    ("summary", .string(batch.summaryPath)),
                ])
            })),
        ])
    }
}
