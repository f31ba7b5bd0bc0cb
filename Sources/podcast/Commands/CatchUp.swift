import ArgumentParser
import PodcastKit

/// `podcast catch-up [<subscription>...]`: mark every new episode seen, so update downloads none of them.
struct CatchUp: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "catch-up",
        abstract: "Mark every new episode of subscriptions as seen: update will not download them.",
        discussion: """
            <subscription> is a number from podcast subscriptions, a feed URL, or an exact title; \
            without one, every subscription is caught up. Episodes published later are new again.

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
        let chosen = try SubscriptionReference.resolve(subscriptions, in: try store.subscriptions(), store: store)
        let count = try store.catchUp(chosen.map(\.id))
        if output.json {
            context.console.print(JSONValue.object([("caught_up", .int(count)), ("subscriptions", .int(chosen.count))])
                .serialized(pretty: context.console.stdoutIsTerminal))
        }
        context.console.message("marked \(Plural.count(count, "new episode")) of \(Plural.count(chosen.count, "subscription")) as seen")
    }
}
