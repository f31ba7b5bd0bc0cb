import ArgumentParser
import PodcastKit
import PodcastPlatform

/// `podcast update [<subscription>...]`: fetch every subscribed feed at once and download what is new.
struct Update: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Fetch the subscribed feeds and download their new episodes (for cron or a systemd timer).",
        discussion: """
            Every feed (or those named: numbers from podcast subscriptions, feed URLs, titles) is \
            fetched at once, with a conditional GET; each feed's new episodes start downloading as \
            soon as it is read, as podcast download would, and then each subscription's --keep is \
            applied. A feed gets --feed-timeout seconds in all, and a server 30 s to begin \
            answering; a host that does not answer twice is skipped for the rest of the update. \
            Feeds that moved are followed and remembered; one answering 410 Gone is skipped from \
            then on, unless named here (or subscribed to again). One failing feed or episode never \
            stops the others; the summary says why feeds failed, and the exit code is 1 when any did.

            Examples:
              podcast update
              podcast update --check
              podcast update 2 -q --limit-rate 1M
            """
    )

    @Argument(help: "Which subscriptions (default: all).")
    var subscriptions: [String] = []

    @Flag(help: "Only fetch the feeds and list what is new; download nothing.")
    var check = false

    @Flag(help: "Fetch every feed in full even when its server says it has not changed.")
    var refresh = false

    @Option(help: .setting("feed-timeout", valueName: "seconds"))
    var feedTimeout: String?

    @Flag(help: "Hand the whole update to the background worker and return at once; watch with `podcast status --watch`.")
    var background = false

    @OptionGroup
    var transfer: TransferOptions

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if background && check { throw ValidationError("--check lists what is new here and now; it cannot run in the background") }
        try GivenSetting.validate(feedTimeout.map { [GivenSetting("feed-timeout", text: $0)] } ?? [])
    }

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        let all = try store.subscriptions.all()
        guard !all.isEmpty else {
            if output.json { context.console.print(UpdateRendering.emptyJSON.serialized(pretty: false)) }
            context.console.message("no subscriptions to update; add one with podcast subscribe <feed>")
            return
        }
        let resolved = try SubscriptionReference.resolve(subscriptions, in: all, store: store)
        let chosen = subscriptions.isEmpty ? resolved : resolved.map(\.namedForUpdate)
        if background {
            return try BackgroundSubmission.submitUpdate(
                of: subscriptions.isEmpty ? nil : chosen, refresh: refresh, deadlines: try context.feedDeadlines(flag: feedTimeout), transfer: transfer, output: output, store: store, context: context)
        }
        let update = SubscriptionUpdate(
            store: store, paths: context.paths, settings: try transfer.settings(context: context), deadlines: try context.feedDeadlines(flag: feedTimeout))
        let stop = RunStop()
        Interruption.forward(to: { stop.stop() })
        let started = ContinuousClock.now
        let display = ProgressDisplay(console: context.console)
        let outcome: SubscriptionUpdate.Outcome
        do {
            defer { display.close() }
            outcome = try update.run(chosen, check: check, refresh: refresh, stop: stop) { event in
                show(event, display: display, console: context.console)
            }
        } catch let error as EpisodesDirectoryError {
            throw error.naming(transfer, context: context)
        }
        // Episodes of a background batch finished here complete it.
        BatchCompletion.settle(store: store, context: context)

        let rendering = UpdateRendering(outcome: outcome, numbers: all, elapsed: ContinuousClock.now - started)
        if output.json {
            context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
        } else if check {
            for line in rendering.pendingLines { context.console.print(line) }
        }
        context.console.message(rendering.summary(check: check))
        try DownloadSession.end(outcome.stop, succeeded: rendering.succeeded, again: "podcast update", console: context.console)
    }

    /// One event of the update: feed lines and warnings (errors also with --quiet), the downloads'
    /// display, deletions by keep.
    private func show(_ event: SubscriptionUpdate.Event, display: ProgressDisplay, console: Console) {
        switch event {
        case .feed(let report):
            UpdateRendering.lines(for: report).forEach(display.say)
        case .download(let update):
            // Off a terminal (cron mail), a line per finished episode is enough: none per start.
            if case .started = update, !console.stderrIsTerminal { return }
            display.show(update)
        case .deleted(let path, let subscription):
            display.say("deleted \(path) (keep \(subscription.settings.keep ?? 0) of \(subscription.title))")
        case .warning(let message):
            display.say("warning: " + message)
        }
    }
}
