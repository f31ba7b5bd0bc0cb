import ArgumentParser
import Glibc
import PodcastKit
import PodcastPlatform

/// `podcast worker` (hidden): the background worker that `download --background` starts, detached,
/// with its output in `<home>/worker.log`. What it does is `BackgroundWorker`'s; this command
/// gives it the log and the renderings.
struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run the queued background downloads (started by download --background).",
        shouldDisplay: false)

    func run() throws {
        let context = try CommandContext.current()
        // The launching terminal may hang up; the worker has its own session, but a stray SIGHUP
        // (`kill -HUP`) must not end it either. Commands it starts are not waited for: reap them.
        signal(SIGHUP, SIG_IGN)
        signal(SIGCHLD, SIG_IGN)
        let stop = RunStop()
        Interruption.forward(to: { stop.stop() }, signals: [SIGINT, SIGTERM])
        let store = try context.openStore()
        let worker = BackgroundWorker(
            paths: context.paths, store: store,
            completion: BatchCompletion.of(store: store, context: context),
            log: { context.console.message($0) },
            display: {
                let display = ProgressDisplay(console: context.console)
                return ({ display.show($0) }, { display.close() })
            },
            summary: { DownloadRendering(results: $0, elapsed: $1).summary },
            feedLines: UpdateRendering.lines(for:),
            updateSummary: { UpdateRendering(outcome: $0, numbers: [], elapsed: $1).summary(check: false) })
        try worker.run(stop: stop)
    }
}
