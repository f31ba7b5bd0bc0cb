import ArgumentParser
import PodcastKit
import PodcastText

/// `podcast unsubscribe <subscription>...`: stop updating feeds; their files stay unless asked.
struct Unsubscribe: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "unsubscribe",
        abstract: "Stop updating feeds; with --delete-files, also delete the files podcast downloaded for them.",
        discussion: """
            <subscription> is a number from podcast subscriptions, a feed URL, or a title (letter case aside). \
            Files stay where they are unless --delete-files, which deletes only the files that \
            subscription's updates downloaded (with their companions, and the podcast's cover and \
            playlist), unchanged since: never an episode you downloaded by hand, nor any other \
            file in its folder.

            Examples:
              podcast unsubscribe 3
              podcast unsubscribe "The Loopback Hour" --delete-files
            """
    )

    @Argument(help: "Which subscriptions: numbers, feed URLs or titles.")
    var subscriptions: [String]

    @Flag(help: "Also delete the files their updates downloaded (never those downloaded by hand).")
    var deleteFiles = false

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        let chosen = try SubscriptionReference.resolve(subscriptions, in: try store.subscriptions.all(), store: store)
        var removed: [JSONValue] = []
        var failed = false
        let deletion = LibraryDeletion(store: store)
        for subscription in chosen {
            var deleted = 0
            if deleteFiles {
                var problems: [String] = []
                for file in try store.subscriptions.filesDownloaded(by: subscription) {
                    let outcome = try deletion.deleteEpisode(
                        file.key, for: .unsubscribe(subscription: subscription.id))
                    problems += outcome.problems
                    deleted += outcome.files.count
                }
                let podcastFiles = try deletion.deletePodcastFiles(of: subscription.url, subscription: subscription.id)
                deleted += podcastFiles.files.count
                for problem in problems + podcastFiles.problems {
                    context.console.error("\(problem)")
                    failed = true
                }
            }
            if deleteFiles, case let others = try store.subscriptions.filesNotDownloaded(by: subscription), others > 0 {
                context.console.note("left \(Plural.count(others, "file")) of \"\(subscription.title)\" that its updates did not download "
                    + "(downloaded by hand, or before podcast recorded why); podcast delete removes them")
            }
            try store.subscriptions.unsubscribe(subscription.id)
            let files = deleteFiles ? "; deleted \(Plural.count(deleted, "file"))" : ""
            context.console.message("unsubscribed from \"\(subscription.title)\" (\(subscription.url))\(files)")
            removed.append(.object([
                ("title", .string(subscription.title)), ("url", .string(subscription.url)),
                ("deleted_files", .int(deleted)),
            ]))
        }
        if output.json {
            context.console.print(JSONValue.object([("unsubscribed", .array(removed))]).serialized(pretty: context.console.stdoutIsTerminal))
        }
        if failed { throw ExitCode(ExitStatus.operationFailed) }
    }
}
