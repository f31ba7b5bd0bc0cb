import PodcastPlatform

extension PodcastPaths {
    /// The background worker's lock: held (`flock`) by the one worker of this home for its whole life.
    public var workerLock: String { home + "/worker.lock" }
    /// The pid of the last worker that took the lock (informational: the lock says whether it runs).
    public var workerPID: String { home + "/worker.pid" }
    /// Where the background worker and the `--on-complete` commands write their output.
    public var workerLog: String { home + "/worker.log" }
    /// Where each finished batch's JSON summary is kept, as `<id>.json`.
    public var batchSummaries: String { home + "/batches" }
}
