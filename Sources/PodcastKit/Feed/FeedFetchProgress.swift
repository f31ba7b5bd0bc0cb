/// How much of a feed has arrived, for a line that shows a slow or large fetch going on.
public struct FeedFetchProgress: Sendable, Equatable {
    /// The address being fetched.
    public var url: String
    /// The bytes of the answer received so far.
    public var receivedBytes: Int
}

/// When progress is worth showing: not before `delay` has passed since the work began (a quick
/// fetch shows nothing, so nothing flickers), then at most once per `interval`. A value that is
/// asked with instants, so tests set the clock.
public struct ProgressPacing: Sendable {
    private let start: ContinuousClock.Instant
    private let delay: Duration
    private let interval: Duration
    private var lastShown: ContinuousClock.Instant?

    /// Pacing for work that began at `start`.
    public init(start: ContinuousClock.Instant, delay: Duration = .seconds(1), interval: Duration = .milliseconds(250)) {
        self.start = start
        self.delay = delay
        self.interval = interval
    }

    /// Whether progress should be shown at `now`; a yes counts as shown.
    public mutating func isDue(at now: ContinuousClock.Instant) -> Bool {
        guard now - start >= delay else { return false }
        if let lastShown, now - lastShown < interval { return false }
        lastShown = now
        return true
    }
}
