import Glibc
import PodcastPlatform
import PodcastText

/// What the background worker (`podcast worker`, started detached by `download --background`)
/// does, from taking its lock to letting it go.
///
/// It takes the worker lock (or returns at once: another worker runs), then downloads the queued
/// batches, oldest first, each with the settings it was queued with (`QueuedSettings`, its
/// secrets from `BatchSecrets`). A running batch takes the episodes queued after it started from
/// every open batch queued with the same settings (`DownloadBatch.run(_:refill:)`), so a second request
/// does not wait behind a long backlog while slots are free; a batch with other options runs next.
/// After each run it settles finished batches (summary, `--on-complete`). Updates queued by
/// `update --background` run between batches, oldest first, each with its settings. When the queue is empty
/// it lets go of the lock, looks at the queue once more (a launcher may have queued work just
/// then, seeing the lock still held) and carries on if it can take the lock again.
public struct BackgroundWorker {
    let paths: PodcastPaths
    let store: StateStore
    let completion: BatchCompletion
    /// One line for the worker's log.
    let log: (String) -> Void
    /// A new display for each run's progress (the log's progress lines).
    let display: () -> (report: (DownloadUpdate) -> Void, close: () -> Void)
    /// One line summing up a run's results.
    let summary: ([DownloadResult], Duration) -> String
    /// The log lines of one feed of an update.
    let feedLines: (SubscriptionUpdate.FeedReport) -> [String]
    /// One line summing up an update.
    let updateSummary: (SubscriptionUpdate.Outcome, Duration) -> String

    /// Creates the worker of the home at `paths`.
    public init(
        paths: PodcastPaths, store: StateStore, completion: BatchCompletion, log: @escaping (String) -> Void,
        display: @escaping () -> (report: (DownloadUpdate) -> Void, close: () -> Void),
        summary: @escaping ([DownloadResult], Duration) -> String,
        feedLines: @escaping (SubscriptionUpdate.FeedReport) -> [String],
        updateSummary: @escaping (SubscriptionUpdate.Outcome, Duration) -> String
    ) {
        self.paths = paths
        self.store = store
        self.completion = completion
        self.log = log
        self.display = display
        self.summary = summary
        self.feedLines = feedLines
        self.updateSummary = updateSummary
    }

    /// Runs until the queue is empty or `stop` is asked; returns at once when another worker holds
    /// the lock.
    public func run(stop: RunStop) throws {
        guard var lock = try WorkerLock.acquire(at: paths.workerLock) else { return }
        try WorkerLauncher.recordWorkerPID(paths: paths)
        log("worker \(getpid()) started")
        while true {
            while !stop.isStopping {
                if let work = try store.batches.takeWork(for: .current) {
                    run(work, stop: stop)
                } else if let request = try store.updateRequests.takeOldest() {
                    run(request, stop: stop)
                } else {
                    break
                }
                completion.settle()
            }
            completion.settle()
            if stop.isStopping { break }
            lock.release()
            guard try store.batches.hasWork(), let again = try WorkerLock.acquire(at: paths.workerLock) else { break }
            lock = again
        }
        log("worker \(getpid()) done")
    }

    /// The batch that fetches `queued`'s episodes with the settings it was queued with.
    private func makeBatch(_ queued: BackgroundBatch) throws -> DownloadBatch {
        let secrets = try queued.settings.secretsFile.map { name throws(SystemError) in try BatchSecrets(paths: paths).load(name) }
        let settings = queued.settings.settings(secrets: secrets, fallbackDirectory: paths.episodesDirectory)
        return DownloadBatch(store: store, settings: settings)
    }

    /// Downloads one batch's queued episodes, and those queued later with the same settings.
    private func run(_ work: (batch: BackgroundBatch, records: [DownloadRecord]), stop: RunStop) {
        log("batch \(work.batch.id): downloading \(Plural.count(work.records.count, "episode"))")
        do {
            let batch = try makeBatch(work.batch)
            let listing = try store.currentListing.load()
            let items = work.records.map { DownloadItem(resuming: $0, listing: listing) }
            stop.running(batch.interrupter)
            defer { stop.running(nil) }
            let display = display()
            let started = ContinuousClock.now
            let outcome = try batch.run(items, refill: { refill(like: work.batch, listing: listing) }, report: display.report)
            display.close()
            log("batch \(work.batch.id): " + summary(outcome.results, .now - started))
            switch outcome.stop {
            case .storageFull(let reason):
                log("error: stopped every download: \(reason); free some space, then run podcast resume")
                stop.stop()
            case .interrupted:
                log("interrupted: unfinished episodes are paused with their data kept; run podcast resume to continue")
            case nil:
                break
            }
        } catch {
            // The records stay taken by this process: once it ends they show as interrupted, for `resume`.
            log("error: batch \(work.batch.id): \(error); run podcast resume to try again")
            stop.stop()
        }
    }

    /// Runs one queued update: its feeds, its downloads, its keeps.
    private func run(_ request: UpdateRequest, stop: RunStop) {
        let secrets = BatchSecrets(paths: paths)
        defer {
            if let file = request.settings.secretsFile {
                do { try secrets.remove(file) } catch { log("warning: could not remove the secrets file of update \(request.id): \(error)") }
            }
        }
        do {
            let contents = try request.settings.secretsFile.map { name throws(SystemError) in try secrets.load(name) }
            let settings = request.settings.settings(secrets: contents, fallbackDirectory: paths.episodesDirectory)
            let all = try store.subscriptions.all()
            let chosen = request.subscriptions.map { ids in all.filter { ids.contains($0.id) }.map(\.namedForUpdate) } ?? all
            log("update \(request.id): fetching \(Plural.count(chosen.count, "feed"))")
            let display = display()
            let started = ContinuousClock.now
            let outcome = try SubscriptionUpdate(store: store, paths: paths, settings: settings, deadlines: request.settings.feedDeadlines)
                .run(chosen, refresh: request.refresh, stop: stop) { event in
                    switch event {
                    case .feed(let report): feedLines(report).forEach(log)
                    case .download(let update): display.report(update)
                    case .deleted(let path, let subscription): log("deleted \(path) (keep \(subscription.settings.keep ?? 0) of \(subscription.title))")
                    case .warning(let message): log("warning: " + message)
                    }
                }
            display.close()
            log("update \(request.id): " + updateSummary(outcome, .now - started))
        } catch {
            log("error: update \(request.id): \(error); run podcast update to try again")
        }
    }

    /// Episodes queued since, by batches with the same settings as `running`, taken for this worker.
    private func refill(like running: BackgroundBatch, listing: Listing?) -> [DownloadItem] {
        do {
            guard let more = try store.batches.takeWork(for: .current, settings: running.settings) else { return [] }
            log("batch \(more.batch.id): \(Plural.count(more.records.count, "episode")) " + (more.records.count == 1 ? "joins" : "join") + " the running downloads")
            return more.records.map { DownloadItem(resuming: $0, listing: listing) }
        } catch {
            log("warning: could not look for newly queued downloads: \(error); they start after the running ones")
            return []
        }
    }
}
