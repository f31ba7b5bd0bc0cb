import FoundationEssentials
import PodcastKit
import PodcastPlatform
import PodcastText

/// How `status` shows the progress buffer: the worker; the running and queued downloads first,
/// then those that need a decision (failed, paused, interrupted), then the latest finished ones
/// and how many more there are; what to do about interrupted ones; the recent batches. Each row
/// carries its number in the last listing, which `pause` and `cancel` take. Or the contract's
/// JSON document.
struct StatusRendering {
    let status: DownloadStatus
    let paths: PodcastPaths
    /// The numbers of the last listing, by episode.
    let numbers: [EpisodeKey: Int]
    /// Whether finished rows show when they finished (`status --all`).
    let datedFinished: Bool

    init(status: DownloadStatus, paths: PodcastPaths, listing: Listing?, datedFinished: Bool = false) {
        self.status = status
        self.paths = paths
        self.datedFinished = datedFinished
        var numbers: [EpisodeKey: Int] = [:]
        if let listing {
            let feed = listing.source.feedKey
            for item in listing.items { numbers[EpisodeKey(feed: feed, identity: item.identity)] = item.number }
        }
        self.numbers = numbers
    }

    /// How many finished downloads `status` shows; `--all` shows every one.
    static let latestFinished = 5

    /// The text, each line at most `width` columns (nil: no limit) and, with `height`, at most
    /// that many lines: rows that do not fit are counted in a "+N more" line instead. A failed
    /// download's reason takes the lines under its row, so the title keeps its room.
    func lines(width: Int?, height: Int? = nil) -> [String] {
        let header = [status.worker.map { "worker: running (pid \($0)); log: \(paths.workerLog)" } ?? "worker: not running"]
        guard !status.downloads.isEmpty else { return header + ["no downloads"] + footer }
        let rendered = table.render(width: width)
        let indent = rendered.columnStarts[Self.stateColumn] ?? 0
        let rows = zip(rendered.lines.dropFirst(), ordered).map { line, entry in
            [line] + Self.reasonLines(of: entry, indent: indent, width: width)
        }
        var table = [rendered.lines[0]] + rows.joined()
        if let height {
            let room = max(1, height - header.count - footer.count - 2)
            if table.count - 1 > room {
                // Whole rows, with their reasons, as many as fit (at least one), then the count of the others.
                var kept = 0
                var used = 0
                while kept < rows.count, kept == 0 || used + rows[kept].count <= room {
                    used += rows[kept].count
                    kept += 1
                }
                table = [rendered.lines[0]] + rows.prefix(kept).joined()
                if kept < rows.count { table.append("+\(rows.count - kept) more; podcast status lists them all") }
            }
        }
        return header + table + footer
    }

    /// The index of the State column, under which a failed download's reason is written.
    private static let stateColumn = 1

    /// Why `entry` failed, wrapped to `width` under its row from `indent`; none for other states.
    static func reasonLines(of entry: DownloadStatus.Entry, indent: Int, width: Int?) -> [String] {
        guard entry.state == .failed else { return [] }
        let reason = (entry.record.error ?? "failed").singleLine().removingBidiControls()
        let margin = String(repeating: " ", count: indent)
        guard let width else { return [margin + reason] }
        let room = max(20, width - indent)
        return TextWrap.lines(reason, width: room).map { DisplayWidth.truncate(margin + $0, to: width) }
    }

    /// What follows the table: how many more finished, what to do about interrupted downloads,
    /// then the batches.
    var footer: [String] {
        let more = status.finishedNotShown > 0
            ? ["and \(status.finishedNotShown) more finished in the last 24 h; podcast status --all lists them, podcast history lists older ones too"]
            : []
        return more + notices + status.batches.map { BatchRendering(batch: $0).line }
    }

    /// The rows in the order they are shown: running and queued, then failed, paused and
    /// interrupted, then finished (most recent first, as read).
    var ordered: [DownloadStatus.Entry] {
        let rank: (DownloadStatus.State) -> Int = { state in
            switch state {
            case .downloading: 0
            case .queued: 1
            case .failed, .paused, .interrupted: 2
            case .downloaded: 3
            }
        }
        return status.downloads.enumerated().sorted { (rank($0.element.state), $0.offset) < (rank($1.element.state), $1.offset) }.map(\.element)
    }

    /// The episode's number in the last listing, or "-".
    func number(of record: DownloadRecord) -> String {
        numbers[EpisodeKey(feed: record.feed, identity: record.identity)].map(String.init) ?? "-"
    }

    private var table: TextTable {
        var columns = [
            TextTable.Column("#", alignment: .right),
            TextTable.Column("State"),
            TextTable.Column("Done", alignment: .right),
            TextTable.Column("Size", alignment: .right),
            TextTable.Column("Speed", alignment: .right, droppable: true, omittedWhenEmpty: true),
            TextTable.Column("ETA", alignment: .right, droppable: true, omittedWhenEmpty: true),
        ]
        if datedFinished { columns.append(TextTable.Column("Finished", droppable: true, omittedWhenEmpty: true)) }
        columns += [TextTable.Column("Podcast", minWidth: 8, shrinkStage: 2, droppable: true), TextTable.Column("Title", minWidth: 16, shrinkStage: 1)]
        let rows = ordered.map { entry in
            let record = entry.record
            let total = record.resume.total ?? record.enclosureLength
            let percent = total.map { $0 > 0 ? "\(min(100, record.bytes * 100 / $0))%" : "" } ?? ""
            let size = total.map { "\(ByteCount.text(record.bytes)) of \(ByteCount.text($0))" } ?? ByteCount.text(record.bytes)
            let speed = Self.speed(of: entry)
            let eta = speed.flatMap { speed in
                total.flatMap { $0 > record.bytes ? EpisodesRendering.timeLeft(bytes: $0 - record.bytes, speed: speed) : nil }
            }
            var row = [number(of: record), entry.state.rawValue, percent, size, speed.map { "\(ByteCount.text(Int64($0)))/s" } ?? "", eta ?? ""]
            if datedFinished { row.append(entry.state == .downloaded ? UTCDate.minute(entry.updated) : "") }
            return row + [record.podcastTitle, record.title]
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

    /// `{"downloads": [{"number", "guid", "title", "podcast", "state", "bytes", "total", "path", "error", "speed",
    /// "finished"}], "worker": {"running", "pid", "log"}, "batches": [{"id", "created", "finished", "pending",
    /// "downloaded", "skipped", "failed", "summary"}]}`.
    var json: JSONValue {
        .object([
            ("downloads", .array(ordered.map { entry in
                let record = entry.record
                return .object([
                    ("number", .int(numbers[EpisodeKey(feed: record.feed, identity: record.identity)])),
                    ("guid", .string(record.guid)),
                    ("title", .string(record.title)),
                    ("podcast", .string(record.podcastTitle)),
                    ("state", .string(entry.state.rawValue)),
                    ("bytes", .int(Int(record.bytes))),
                    ("total", .int((record.resume.total ?? record.enclosureLength).map(Int.init))),
                    ("path", .string(entry.state == .downloaded ? record.path : nil)),
                    ("error", .string(entry.state == .failed || entry.state == .paused ? record.error : nil)),
                    ("speed", .int(Self.speed(of: entry).map { Int($0) })),
                    ("finished", .string(entry.state == .downloaded ? UTCDate.iso8601(entry.updated) : nil)),
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
