import FoundationEssentials
import PodcastPlatform

/// What `podcast status` reports: the progress buffer as read from the store while downloads
/// run, each download's state as a user should see it, the worker, and recent batches.
public struct DownloadStatus: Sendable {
    /// A download's state for `status`: the stored one, except that a download whose process is
    /// gone (or that waits for a worker when none runs) is `interrupted`, never "downloading" forever.
    public enum State: String, Sendable {
        case queued, downloading, paused, failed, downloaded, interrupted
    }

    /// One download and its state.
    public struct Entry: Sendable {
        /// The stored record (bytes, total, speed, error, path).
        public var record: DownloadRecord
        /// The state to show.
        public var state: State
        /// When the record last changed: for a finished download, when it finished.
        public var updated: Date
    }

    /// Which finished downloads are read.
    public enum FinishedScope: Sendable, Equatable {
        /// Of those finished within `recent`, the `count` most recent (the rest are only counted).
        case latest(Int)
        /// Every one finished within `recent`.
        case recent
        /// Every one ever finished, with its date.
        case all
    }

    /// Unfinished downloads (by podcast, newest episode first), then the finished ones read (the
    /// most recently finished first).
    public var downloads: [Entry]
    /// Downloads finished within `recent` that were counted but not read (`FinishedScope.latest`).
    public var finishedNotShown = 0
    /// The running worker's pid (nil: no worker runs).
    public var worker: Int32?
    /// The pid of the last worker that ran (from `worker.pid`).
    public var lastWorker: Int32?
    /// Open batches and those finished recently, newest first.
    public var batches: [BackgroundBatch]

    /// Reads the status of `paths`' home; "recently" is within `recent`, and `finished` says which
    /// finished downloads are read.
    public static func read(
        store: StateStore, paths: PodcastPaths, finished scope: FinishedScope = .recent, recent: Duration = .seconds(24 * 3600)
    ) throws(StoreError) -> DownloadStatus {
        let since = Date(timeIntervalSinceNow: -Double(recent.components.seconds))
        let worker = WorkerLauncher.runningWorkerPID(paths: paths)
        let lastWorker = WorkerLauncher.recordedWorkerPID(paths: paths)
        let workerRuns = worker != nil || WorkerLock.isHeld(at: paths.workerLock)
        let unfinished = try store.downloadActivity.unfinished().map { record, updated in
            Entry(record: record, state: state(of: record, workerRuns: workerRuns, lastWorker: lastWorker), updated: updated)
        }
        let finished: [(record: DownloadRecord, updated: Date)]
        var notShown = 0
        switch scope {
        case .latest(let count):
            finished = try store.downloadActivity.finished(since: since, limit: count)
            if finished.count == count { notShown = try store.downloadActivity.finishedCount(since: since) - count }
        case .recent: finished = try store.downloadActivity.finished(since: since, limit: nil)
        case .all: finished = try store.downloadActivity.finished(since: nil, limit: nil)
        }
        var status = DownloadStatus(
            downloads: unfinished + finished.map { Entry(record: $0.record, state: .downloaded, updated: $0.updated) },
            worker: worker, lastWorker: lastWorker, batches: try store.batches.all(finishedSince: since))
        status.finishedNotShown = max(0, notShown)
        return status
    }

    /// A record's state as `status` shows it. A download owned by the worker while no worker
    /// holds the lock is interrupted, even while its killed process is still being torn down.
    private static func state(of record: DownloadRecord, workerRuns: Bool, lastWorker: Int32?) -> State {
        switch record.state {
        case .queued, .downloading:
            guard let owner = record.owner else { return workerRuns ? .queued : .interrupted }
            if !workerRuns, owner.pid == lastWorker { return .interrupted }
            return owner.isAlive ? State(rawValue: record.state.rawValue) ?? .queued : .interrupted
        case .paused: return .paused
        case .failed: return .failed
        // No stored record is deleted (only listings make such records).
        case .downloaded, .deleted: return .downloaded
        }
    }

    /// True while a download is queued or running in a live process, or a running worker has yet
    /// to settle a batch whose downloads have all ended (a `--watch` goes on until it has).
    public var isActive: Bool {
        downloads.contains { $0.state == .queued || $0.state == .downloading }
            || worker != nil && batches.contains { $0.finished == nil }
    }

    /// The pids of the gone processes whose downloads are interrupted (nil: waiting for a worker that does not run).
    public var interruptedBy: [Int32?] {
        var pids: [Int32?] = []
        for entry in downloads where entry.state == .interrupted && !pids.contains(entry.record.owner?.pid) {
            pids.append(entry.record.owner?.pid)
        }
        return pids
    }
}
