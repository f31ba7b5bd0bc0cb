import ArgumentParser
import PodcastKit

/// `podcast delete <selection>...` / `podcast delete --older-than DAYS`: delete downloaded episodes'
/// files (media and companions), only those podcast wrote.
struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete downloaded episodes: their files and companion files, only those podcast wrote.",
        discussion: """
            <selection> is any mix of 3, 1-5, 6-, 2,4,9 and all over the numbers of the last listing, \
            like podcast download; --since, --until, --match and --latest narrow it. --older-than DAYS \
            deletes only episodes published more than DAYS days ago (an undated one is never among \
            them); alone, it applies to every episode podcast downloaded. Only files podcast \
            recorded as its own are deleted, never a file you put in the folder, nor one that \
            changed size since podcast wrote it. A deleted episode is not downloaded again by \
            podcast update (podcast download N still fetches it when asked).

            Examples:
              podcast delete 3
              podcast delete all --until 2026-01-01
              podcast delete --older-than 30
            """
    )

    @Argument(help: "Which episodes: 3, 1-5, 6-, 2,4,9, all (of the last listing).")
    var selection: [String] = []

    @Option(help: ArgumentHelp("Only episodes published more than DAYS days ago.", valueName: "DAYS"))
    var olderThan: Int?

    @OptionGroup
    var filters: SelectionFilterOptions

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if selection.isEmpty && olderThan == nil {
            throw ValidationError("give the episodes to delete (\(Selection.words)), or --older-than DAYS")
        }
        if !selection.isEmpty { try Selection.validateArgument(selection) }
        if let olderThan, olderThan < 0 { throw ValidationError("--older-than must be 0 or more days, not \(olderThan)") }
    }

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        var keys: [EpisodeKey]?
        if !selection.isEmpty {
            guard let listing = try store.currentListing() else {
                throw UsageError("there is no listing to delete from; run podcast episodes <feed> first, or give only --older-than")
            }
            keys = try listing.selectedItems(selection, filter: filters.filter, records: try store.downloadRecords(feed: listing.source.feedKey))
                .map(\.key)
        }
        var rows: [JSONValue] = []
        var count = 0
        var bytes: Int64 = 0
        let problems = try LibraryDeletion(store: store).delete(keys, olderThanDays: olderThan) { record, outcome in
            guard !outcome.files.isEmpty || outcome.problems.isEmpty else { return }
            count += 1
            bytes += outcome.bytes
            for file in outcome.files { context.console.message("deleted \(file)") }
            rows.append(.object([
                ("guid", .string(record.guid)), ("title", .string(record.title)), ("podcast", .string(record.podcastTitle)),
                ("files", .array(outcome.files.map { .string($0) })), ("bytes", .int(Int(outcome.bytes))),
            ]))
        }
        for problem in problems { context.console.warning(problem) }
        if output.json {
            context.console.print(JSONValue.object([
                ("deleted", .array(rows)), ("problems", .array(problems.map { .string($0) })),
            ]).serialized(pretty: context.console.stdoutIsTerminal))
        }
        context.console.message(count == 0 && problems.isEmpty
            ? "nothing to delete: no episode podcast downloaded matches"
            : "deleted \(Plural.count(count, "episode")) (\(ByteCount.text(bytes)))")
        if !problems.isEmpty { throw ExitCode(ExitStatus.operationFailed) }
    }
}
