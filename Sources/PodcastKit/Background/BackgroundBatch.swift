import FoundationEssentials

/// One `download --background` (or `resume --background`) request: the episodes it asked for, the
/// options to fetch them with, and, once every episode has settled, what became of each.
public struct BackgroundBatch: Sendable, Equatable {
    /// The batch's number in the store.
    public var id: Int
    /// When it was queued.
    public var created: Date
    /// When its last episode settled; nil while it is open.
    public var finished: Date?
    /// The settings it was queued with.
    public var settings: QueuedSettings
    /// The shell command to run once it finishes.
    public var onComplete: String?
    /// The JSON summary written when it finished.
    public var summaryPath: String?
    /// The episodes that have settled (downloaded, skipped, failed or cancelled), in the order asked.
    public var results: [DownloadResult]
    /// Episodes not settled yet: queued, running, paused or interrupted.
    public var pending: Int

    /// Creates a batch value.
    public init(
        id: Int, created: Date, finished: Date?, settings: QueuedSettings, onComplete: String?, summaryPath: String?,
        results: [DownloadResult], pending: Int
    ) {
        self.id = id
        self.created = created
        self.finished = finished
        self.settings = settings
        self.onComplete = onComplete
        self.summaryPath = summaryPath
        self.results = results
        self.pending = pending
    }

    /// How many results are in `state`.
    public func count(_ state: DownloadResult.State) -> Int {
        results.count { $0.state == state }
    }
}

/// What queueing a batch did.
public struct QueuedBatch: Sendable, Equatable {
    /// The new batch's number.
    public var id: Int
    /// Episodes left for a worker (or another live process already on them).
    public var queued: Int
    /// Episodes settled at once: already downloaded, or with nothing to download.
    public var settled: Int
}
