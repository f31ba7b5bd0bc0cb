import ArgumentParser
import PodcastKit
import PodcastPlatform
import PodcastText

/// `podcast catch-up [<subscription>...]`: mark every new episode seen, so update downloads none of them.
struct CatchUp: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "catch-up",
        abstract: "Mark every new episode of subscriptions as seen: update will not download them.",
        discussion: """
            <subscription> is a number from podcast subscriptions, a feed URL, or a title (letter case aside); \
            without one, every subscription is caught up. Each feed is fetched first (as podcast \
            update --check does), so an episode it already lists is caught up too, not downloaded \
            by the next update. A feed that cannot be fetched is reported, what podcast knew of \
            it is still marked seen, and the exit code is 1. Episodes published later are new again.

            Examples:
              podcast catch-up
              podcast catch-up 2 "The Loopback Hour"
            """
    )

    @Argument(help: "Which subscriptions (default: all).")
    var subscriptions: [String] = []

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        let chosen = try SubscriptionReference.resolve(subscriptions, in: try store.subscriptions.all(), store: store)
        let failed = try fetch(chosen, store: store, context: context)
        let count = try store.subscriptions.catchUp(chosen.map(\.id))
        if output.json {
            context.console.print(JSONValue.object([
                ("caught_up", .int(count)), ("subscriptions", .int(chosen.count)), ("failed", .int(failed)),
            ]).serialized(pretty: context.console.stdoutIsTerminal))
        }
        context.console.message("marked \(Plural.count(count, "new episode")) of \(Plural.count(chosen.count, "subscription")) as seen")
        if failed > 0 { throw ExitCode(ExitStatus.operationFailed) }
    }

    /// Fetches `chosen` the way `update --check` does (their new episodes recorded, nothing
    /// downloaded), so what is caught up is what the feeds list now, not what the last update
    /// saw; says what each fetch found and returns how many failed. Ctrl-C stops before anything
    /// is marked.
    private func fetch(_ chosen: [Subscription], store: StateStore, context: CommandContext) throws -> Int {
        let settings = try TransferOptions.parse([]).settings(context: context)
        let update = SubscriptionUpdate(store: store, paths: context.paths, settings: settings, deadlines: context.base.settings.feedDeadlines)
        let stop = RunStop()
        Interruption.forward(to: { stop.stop() })
        var failed = 0
        let outcome = try update.run(chosen, check: true, stop: stop) { event in
            switch event {
            case .feed(let report) where report.result == .failed:
                failed += 1
                context.console.error("feed \"\(report.subscription.title)\" (\(report.subscription.url)): "
                    + "\(report.error ?? "failed"); what podcast knew of it is marked seen")
            case .feed(let report):
                UpdateRendering.lines(for: report).forEach(context.console.message)
            case .warning(let message):
                context.console.warning(message)
            case .download, .deleted:
                break
            }
        }
        if outcome.stop != nil {
            context.console.message("interrupted: nothing was marked seen")
            throw ExitCode(ExitStatus.interrupted)
        }
        return failed
    }
}
