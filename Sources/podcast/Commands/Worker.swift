import ArgumentParser
import Glibc
import PodcastKit
import Synchronization

/// `podcast worker` (hidden): the background worker that `download --background` starts, detached,
/// with its output in `<home>/worker.log`.
///
/// Lifecycle: it takes the worker lock (or exits at once: another worker runs), ignores SIGHUP,
/// writes `worker.pid`, then runs the queued batches one after another, oldest first, each with
/// the options it was queued with; after each run it settles finished batches (summary,
/// `--on-complete`). When the queue is empty it lets go of the lock, looks at the queue once more
/// (a launcher may have queued work just then, seeing the lock still held) and carries on if it
/// can take the lock again, else exits. SIGTERM pauses the running downloads and ends it.
struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run the queued background downloads (started by download --background).",
        shouldDisplay: false)

    func run() throws {
        let context = try CommandContext.current()
        let paths = context.paths
        guard var lock = try WorkerLock.acquire(at: paths.workerLock) else { return }
        // The launching terminal may hang up; the worker has its own session, but a stray SIGHUP
        // (`kill -HUP`) must not end it either. Commands it starts are not waited for: reap them.
        signal(SIGHUP, SIG_IGN)
        signal(SIGCHLD, SIG_IGN)
        let stop = WorkerStop()
        Interruption.forward(to: { stop.stop() })
        try WorkerLauncher.recordWorkerPID(paths: paths)
        let store = try context.openStore()
        context.console.message("worker \(getpid()) started")
        while true {
            while !stop.isStopping, let work = try store.takeQueuedWork(for: .current) {
                run(work, store: store, stop: stop, context: context)
                BatchCompletion.settle(store: store, context: context)
            }
            BatchCompletion.settle(store: store, context: context)
            if stop.isStopping { break }
            lock.release()
            guard try store.hasQueuedWork(), let again = try WorkerLock.acquire(at: paths.workerLock) else { break }
            lock = again
        }
        context.console.message("worker \(getpid()) done")
    }

    /// Downloads one batch's queued episodes, telling the log what happens.
    private func run(_ work: (batch: BackgroundBatch, records: [DownloadRecord]), store: StateStore, stop: WorkerStop, context: CommandContext) {
        context.console.message("batch \(work.batch.id): downloading \(work.records.count) episodes")
        do {
            let transfer = try TransferOptions.parse(work.batch.options)
            let batch = transfer.batch(store: store, context: context)
            let listing = try store.currentListing()
            let items = work.records.map { DownloadItem(resuming: $0, listing: listing) }
            stop.running(batch.interrupter)
            defer { stop.running(nil) }
            let display = ProgressDisplay(console: context.console)
            let started = ContinuousClock.now
            let outcome = try batch.run(items) { display.show($0) }
            display.close()
            context.console.message("batch \(work.batch.id): " + DownloadRendering(results: outcome.results, elapsed: .now - started).summary)
            switch outcome.stop {
            case .storageFull(let reason):
                context.console.message("error: stopped every download: \(reason); free some space, then run podcast resume")
                stop.stop()
            case .interrupted:
                context.console.message("interrupted: unfinished episodes are paused with their data kept; run podcast resume to continue")
            case nil:
                break
            }
        } catch {
            // The records stay taken by this process: once it ends they show as interrupted, for `resume`.
            context.console.message("error: batch \(work.batch.id): \(error); run podcast resume to try again")
            stop.stop()
        }
    }
}

/// SIGTERM or Ctrl-C to the worker: stop the running batch (its downloads pause) and take no more.
private final class WorkerStop: Sendable {
    private let state = Mutex<(stopping: Bool, interrupt: (@Sendable () -> Void)?)>((false, nil))

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Stops the running batch, if any, and every later one (any thread).
    func stop() {
        let interrupt = state.withLock { state in
            state.stopping = true
            return state.interrupt
        }
        interrupt?()
    }

    /// The batch now running (nil: none); stopped at once if the worker is already stopping.
    func running(_ interrupt: (@Sendable () -> Void)?) {
        let stopping = state.withLock { state in
            state.interrupt = interrupt
            return state.stopping
        }
        if stopping { interrupt?() }
    }
}
