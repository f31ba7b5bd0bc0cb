import ArgumentParser
import PodcastKit

/// `podcast subscriptions`: the numbered list of subscribed feeds.
struct Subscriptions: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "List the subscribed feeds, numbered for update, catch-up and unsubscribe.",
        discussion: """
            Each row gives the episodes its feed has shown, how many are new (waiting for podcast \
            update), how many are downloaded, and when it was last updated with what result.

            Examples:
              podcast subscriptions
              podcast subscriptions --json
            """
    )

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        let rendering = SubscriptionsRendering(summaries: try context.openStore().subscriptions.summaries())
        if output.json {
            context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
        } else if rendering.summaries.isEmpty {
            context.console.message("no subscriptions yet; add one with podcast subscribe <feed>")
        } else {
            for line in rendering.table.render(width: context.console.outputWidth).lines {
                context.console.print(line)
            }
        }
    }
}
