import PodcastKit

/// One running episode as the live display and the plain progress lines see it: where it
/// stands, its speed smoothed over the last seconds, since when it has gained nothing, and when it
/// is tried again. A class, so finding and updating a row copies no strings.
final class ProgressRow {
    let item: DownloadItem
    private(set) var bytes: Int64 = 0
    private(set) var total: Int64?
    /// Whether the server has answered (or bytes are on hand): until then the episode waits (for a
    /// connection the per-host limit holds back, or for the server's first answer). A transfer
    /// the speed cap holds back is receiving, only slowly.
    private(set) var receiving = false
    /// When it is tried again, and why it failed, while it waits.
    var retry: (at: ContinuousClock.Instant, reason: String)?
    /// (instant, bytes) of the last `window`, oldest first: the speed is their slope.
    private var samples: [(at: ContinuousClock.Instant, bytes: Int64)] = []
    /// When `bytes` last grew.
    private var lastGrowth: ContinuousClock.Instant
    /// Off a terminal: the tenth of progress last reported and when.
    var reportedTenth = 0
    var reportedAt: ContinuousClock.Instant

    /// The speed is the average over this long: a steady capped rate then reads steady.
    static let window = Duration.seconds(5)
    /// Gaining nothing this long reads "stalled N s".
    static let stallAfter = Duration.seconds(5)

    init(item: DownloadItem, now: ContinuousClock.Instant = .now) {
        self.item = item
        total = item.entry.enclosureLength
        lastGrowth = now
        reportedAt = now
    }

    /// Whether the row shows `other` (same feed, same episode).
    func shows(_ other: DownloadItem) -> Bool {
        item.key == other.key
    }

    /// Takes a progress report.
    func update(_ progress: TransferProgress, now: ContinuousClock.Instant = .now) {
        // Waiting for the run's own speed cap is no stall of the server's.
        if progress.bytes != bytes || samples.isEmpty || progress.throttled { lastGrowth = now }
        if progress.bytes > 0 || progress.answered { receiving = true }
        if progress.bytes < bytes { samples.removeAll() }
        bytes = progress.bytes
        total = progress.total ?? total
        samples.append((now, bytes))
        while let first = samples.first, now - first.at > Self.window, samples.count > 2 { samples.removeFirst() }
    }

    /// The episode starts (again): a retry's wait is over.
    func restart(now: ContinuousClock.Instant = .now) {
        retry = nil
        lastGrowth = now
        samples.removeAll()
    }

    /// Bytes per second over the last seconds, once there is at least a second to measure.
    func speed(now: ContinuousClock.Instant = .now) -> Double? {
        guard let first = samples.first, let last = samples.last, last.at - first.at >= .seconds(1) else { return nil }
        let seconds = Self.seconds(last.at - first.at)
        return Double(last.bytes - first.bytes) / seconds
    }

    /// How long it has gained nothing, once that is `stallAfter` or more (and it is not waiting to retry).
    func stalled(now: ContinuousClock.Instant = .now) -> Duration? {
        guard retry == nil, receiving, now - lastGrowth >= Self.stallAfter else { return nil }
        return now - lastGrowth
    }

    /// Whole percent done, when the size is known.
    var percent: Int? {
        total.flatMap { $0 > 0 ? Int(min(100, bytes * 100 / $0)) : nil }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
