import ArgumentParser
import FoundationEssentials
import PodcastKit
import PodcastText

/// `podcast history`: every finished download, and every episode podcast deleted since, most
/// recent first, with when.
struct History: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List finished downloads and deleted episodes, most recent first, with when.",
        discussion: """
            Unlike podcast status, which shows the latest few of the last 24 hours, this lists every \
            download podcast has finished, with its date (UTC), size and file, and every episode \
            whose files podcast deleted (delete, keep, unsubscribe --delete-files), as deleted, with \
            when.

            Examples:
              podcast history
              podcast history --limit 20
              podcast history --json
            """
    )

    @Option(help: "Show only the N most recent.")
    var limit: Int?

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more, not \(limit)") }
    }

    /// One line of the history: a finished download or a deletion, and when it happened.
    private enum Entry {
        case downloaded(DownloadRecord, Date)
        case deleted(DeletedEpisode)

        var when: Date {
            switch self {
            case .downloaded(_, let finished): finished
            case .deleted(let episode): episode.deletedAt
            }
        }
    }

    func run() throws {
        let context = try CommandContext.current(tolerant: true)
        let store = try context.openStore()
        let finished = try store.downloadActivity.finished(since: nil, limit: limit).map { Entry.downloaded($0.record, $0.updated) }
        let deleted = try store.deletedEpisodes.latest(limit: limit).map(Entry.deleted)
        var entries = (finished + deleted).sorted { $0.when > $1.when }
        if let limit { entries = Array(entries.prefix(limit)) }
        if output.json {
            context.console.print(JSONValue.object([("downloads", .array(entries.map(Self.json)))])
                .serialized(pretty: context.console.stdoutIsTerminal))
            return
        }
        guard !entries.isEmpty else {
            context.console.message("no finished downloads yet")
            return
        }
        // The State column only when something was deleted: otherwise every row would say the same.
        let showsState = !deleted.isEmpty
        let columns = [TextTable.Column("Finished")] + (showsState ? [TextTable.Column("State")] : []) + [
            TextTable.Column("Size", alignment: .right), TextTable.Column("Podcast", minWidth: 8, shrinkStage: 2),
            TextTable.Column("Title", minWidth: 16, shrinkStage: 1), TextTable.Column("File", droppable: true),
        ]
        let table = TextTable(
            columns: columns,
            rows: entries.map { entry in
                switch entry {
                case .downloaded(let record, let updated):
                    [UTCDate.minute(updated)] + (showsState ? ["downloaded"] : [])
                        + [ByteCount.text(record.bytes), record.podcastTitle, record.title, record.path ?? ""]
                case .deleted(let episode):
                    [UTCDate.minute(episode.deletedAt), "deleted", "", episode.podcastTitle, episode.title, ""]
                }
            })
        for line in table.render(width: context.console.outputWidth).lines { context.console.print(line) }
    }

    /// `{"guid", "title", "podcast", "finished", "bytes", "path", "state", "deleted"}`: `state` is
    /// `downloaded` or `deleted`; a deleted episode has its deletion time and no file.
    private static func json(_ entry: Entry) -> JSONValue {
        switch entry {
        case .downloaded(let record, let updated):
            .object([
                ("guid", .string(record.guid)), ("title", .string(record.title)), ("podcast", .string(record.podcastTitle)),
                ("finished", .string(UTCDate.iso8601(updated))), ("bytes", .int(Int(record.bytes))), ("path", .string(record.path)),
                ("state", .string("downloaded")), ("deleted", .null),
            ])
        case .deleted(let episode):
            .object([
                ("guid", .null), ("title", .string(episode.title)), ("podcast", .string(episode.podcastTitle)),
                ("finished", .null), ("bytes", .null), ("path", .null),
                ("state", .string("deleted")), ("deleted", .string(UTCDate.iso8601(episode.deletedAt))),
            ])
        }
    }
}
