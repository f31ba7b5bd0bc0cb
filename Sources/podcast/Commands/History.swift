import ArgumentParser
import PodcastKit

/// `podcast history`: every finished download, most recent first, with when it finished.
struct History: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List finished downloads, most recent first, with when they finished.",
        discussion: """
            Unlike podcast status, which shows the latest few of the last 24 hours, this lists every \\
            download podcast has finished, with its date (UTC), size and file.

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

    func run() throws {
        let context = try CommandContext.current(tolerant: true)
        let store = try context.openStore()
        let finished = try store.finishedDownloads(since: nil, limit: limit)
        if output.json {
            let downloads = finished.map { record, updated in
                JSONValue.object([
                    ("guid", .string(record.guid)), ("title", .string(record.title)), ("podcast", .string(record.podcastTitle)),
                    ("finished", .string(UTCDate.iso8601(updated))), ("bytes", .int(Int(record.bytes))), ("path", .string(record.path)),
                ])
            }
            context.console.print(JSONValue.object([("downloads", .array(downloads))]).serialized(pretty: context.console.stdoutIsTerminal))
            return
        }
        guard !finished.isEmpty else {
            context.console.message("no finished downloads yet")
            return
        }
        let table = TextTable(
            columns: [
                TextTable.Column("Finished"), TextTable.Column("Size", alignment: .right),
                TextTable.Column("Podcast", minWidth: 8, shrinkStage: 2), TextTable.Column("Title", minWidth: 16, shrinkStage: 1),
                TextTable.Column("File", droppable: true),
            ],
            rows: finished.map { record, updated in
                [UTCDate.minute(updated), ByteCount.text(record.bytes), record.podcastTitle, record.title, record.path ?? ""]
            })
        for line in table.render(width: context.console.outputWidth).lines { context.console.print(line) }
    }
}
