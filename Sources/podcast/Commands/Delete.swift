import ArgumentParser
import FoundationEssentials
import PodcastKit
import PodcastText

/// `podcast delete [<selection>...] [filters]`: delete downloaded episodes' files (media and
/// companions), only those podcast wrote, only those matching every filter given.
struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete downloaded episodes: their files and companion files, only those podcast wrote.",
        discussion: """
            <selection> is any mix of 3, 1-5, 6-, 2,4,9 and all over the numbers of the last listing, \
            like podcast download. Without it, every episode podcast downloaded is a candidate. \
            Every filter given applies, together: --since, --until, --match, --older-than DAYS \
            (published more than DAYS days ago; an undated episode is never among them), then \
            --latest N (the newest N of what is left). It deletes only files podcast wrote for \
            those episodes and that are unchanged since (its ctime as placed, else its size and \
            SHA-256): never a file you put in the folder or edited, nor one found at an episode's \
            name. A deleted episode is not downloaded again by podcast update (podcast download N \
            still fetches it when asked).

            --dry-run lists what would be deleted and deletes nothing. Before deleting more than \
            one episode at a terminal, podcast lists them and asks (y/N); --yes does not ask. Off a \
            terminal (a script, cron) it does not ask: the selection and filters given are the \
            answer.

            Examples:
              podcast delete 3
              podcast delete all --until 2026-01-01
              podcast delete --older-than 30 --match 'news' --dry-run
            """
    )

    @Argument(help: "Which episodes: 3, 1-5, 6-, 2,4,9, all (of the last listing; default: every downloaded one).")
    var selection: [String] = []

    @Option(help: ArgumentHelp("Only episodes published more than DAYS days ago.", valueName: "DAYS"))
    var olderThan: Int?

    @OptionGroup
    var filters: SelectionFilterOptions

    @Flag(help: "List what would be deleted; delete nothing.")
    var dryRun = false

    @Flag(help: "Do not ask before deleting more than one episode at a terminal.")
    var yes = false

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if selection.isEmpty && olderThan == nil && filters.filter.isEmpty {
            throw ValidationError(
                "give the episodes to delete (\(Selection.words)), or a filter: --older-than DAYS, --since, --until, --match, --latest")
        }
        if !selection.isEmpty { try Selection.validateArgument(selection) }
        if let olderThan, olderThan < 0 { throw ValidationError("--older-than must be 0 or more days, not \(olderThan)") }
    }

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        let now = Date()
        let chosen = try filters.filter.apply(toDownloads: try candidates(store: store), olderThanDays: olderThan, now: now)
        if dryRun { return report(wouldDelete: chosen, console: context.console) }
        if chosen.count > 1 && !yes && context.console.inputAndErrorsAreTerminal {
            let question = chosen.map { "  \($0.path ?? $0.title)" }
                + ["delete \(Plural.count(chosen.count, "episode")) (\(ByteCount.text(Self.bytes(of: chosen)))), with their companion files?"]
            guard context.console.confirm(question.joined(separator: "\n")) else {
                if output.json { context.console.print(Self.document([("deleted", []), ("problems", [])], console: context.console)) }
                context.console.message("nothing deleted")
                return
            }
        }
        var rows: [JSONValue] = []
        var count = 0
        var bytes: Int64 = 0
        // Every filter was applied above, in one place: the keys say what goes.
        let problems = try LibraryDeletion(store: store).delete(chosen.map(\.key)) { record, outcome in
            guard !outcome.files.isEmpty || outcome.problems.isEmpty else { return }
            count += 1
            bytes += outcome.bytes
            for file in outcome.files { context.console.message("deleted \(file)") }
            rows.append(Self.row(record, files: outcome.files, bytes: outcome.bytes))
        }
        for problem in problems { context.console.warning(problem) }
        if output.json {
            context.console.print(Self.document([("deleted", rows), ("problems", problems.map { .string($0) })], console: context.console))
        }
        context.console.message(count == 0 && problems.isEmpty
            ? "nothing to delete: no episode podcast downloaded matches"
            : "deleted \(Plural.count(count, "episode")) (\(ByteCount.text(bytes)))")
        if !problems.isEmpty { throw ExitCode(ExitStatus.operationFailed) }
    }

    /// The download records the selection words name (of the last listing), or every one when
    /// there are none; the filters narrow them next.
    private func candidates(store: StateStore) throws -> [DownloadRecord] {
        guard !selection.isEmpty else { return try store.downloads.all() }
        guard let listing = try store.currentListing.load() else {
            throw UsageError("there is no listing to delete from; run podcast episodes <feed> first, or give only filters such as --older-than")
        }
        let records = try store.downloads.records(feed: listing.source.feedKey)
        return try listing.selectedItems(selection, filter: SelectionFilter(), records: records).compactMap { item in
            try store.downloads.record(item.key)
        }
    }

    /// `--dry-run`: the media file of each episode that would go, and how much.
    private func report(wouldDelete chosen: [DownloadRecord], console: Console) {
        for record in chosen { console.message("would delete \(record.path ?? record.title)") }
        if output.json {
            let rows = chosen.map { Self.row($0, files: $0.path.map { [$0] } ?? [], bytes: $0.bytes) }
            console.print(Self.document([("would_delete", rows)], console: console))
        }
        console.message(chosen.isEmpty
            ? "nothing to delete: no episode podcast downloaded matches"
            : "would delete \(Plural.count(chosen.count, "episode")) (\(ByteCount.text(Self.bytes(of: chosen)))); nothing was deleted")
    }

    private static func bytes(of records: [DownloadRecord]) -> Int64 {
        records.reduce(0) { $0 + $1.bytes }
    }

    private static func row(_ record: DownloadRecord, files: [String], bytes: Int64) -> JSONValue {
        .object([
            ("guid", .string(record.guid)), ("title", .string(record.title)), ("podcast", .string(record.podcastTitle)),
            ("files", .array(files.map { .string($0) })), ("bytes", .int(Int(bytes))),
        ])
    }

    private static func document(_ fields: [(String, [JSONValue])], console: Console) -> String {
        JSONValue.object(fields.map { ($0.0, .array($0.1)) }).serialized(pretty: console.stdoutIsTerminal)
    }
}
