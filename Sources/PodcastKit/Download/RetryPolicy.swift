import Glibc

/// What a batch does after an attempt failed: the classification users hit in practice
/// (design notes): dropped connections continue at once, busy or unreachable servers are waited
/// for, expired signed links get one fresh try, missing files fail, a full disk stops everything.
public struct RetryPolicy: Sendable {
    /// Attempts in a row that gained no bytes before an episode fails.
    public var retries: Int
    /// The first back-off wait; each further failure doubles it, up to `longestWait`.
    public var firstWait: Duration
    /// The longest back-off wait (a server's Retry-After may ask for longer, within the budget).
    public var longestWait: Duration
    /// How long one episode may spend failing and waiting before it fails for good.
    public var budget: Duration

    /// The defaults: 6 attempts without progress, waits from 2 s to 60 s, 30 minutes per episode.
    public init(retries: Int = 6, firstWait: Duration = .seconds(2), longestWait: Duration = .seconds(60), budget: Duration = .seconds(1800)) {
        self.retries = retries
        self.firstWait = firstWait
        self.longestWait = longestWait
        self.budget = budget
    }

    /// What to do next.
    public enum Decision: Equatable, Sendable {
        /// Continue from where the partial file stops, now.
        case resumeNow
        /// Continue from where the partial file stops, after `wait`.
        case resume(after: Duration)
        /// Fetch the whole file again, now (the partial cannot be continued).
        case startOver
        /// Ask the feed's original enclosure URL again, now (a signed link may have expired).
        case askOriginalURL
        /// The episode fails; `final` when no later `podcast resume` can help either.
        case fail(final: Bool)
        /// Stop every download: the disk is full or read-only.
        case stopAll
    }

    /// One episode's history of failures, kept by the batch between attempts.
    public struct History: Sendable {
        /// Attempts in a row that gained nothing.
        public var failuresWithoutProgress = 0
        /// Whether the original URL was already asked again after a 401/403.
        public var askedOriginalURL = false
        /// When the episode first failed in this run (the budget counts from here).
        public var firstFailure: ContinuousClock.Instant?

        /// A fresh history.
        public init() {}
    }

    /// Decides after `failure` of an attempt that was `resumed` (asked for a range), updating `history`.
    public func decide(after failure: FailedTransfer, resumed: Bool, history: inout History) -> Decision {
        let now = ContinuousClock.now
        if history.firstFailure == nil { history.firstFailure = now }
        if failure.received > 0 {
            history.failuresWithoutProgress = 0
        }
        switch failure.kind {
        case .cancelled:
            return .fail(final: false)
        case .local(let error):
            return Self.storageIsFull(error.code) ? .stopAll : .fail(final: false)
        case .htmlInsteadOfMedia:
            return .fail(final: true)
        case .startOver where resumed:
            return .startOver
        case .lengthMismatch(let received, _) where received > 0 && failure.received > 0:
            return .resumeNow
        case .http(let error):
            switch error.kind {
            case .status(401), .status(403):
                guard !history.askedOriginalURL else { return .fail(final: true) }
                history.askedOriginalURL = true
                return .askOriginalURL
            case .connectionLost where failure.received > 0, .timedOut where failure.received > 0:
                return .resumeNow
            case .status(let code) where !Self.retryableStatuses.contains(code) && !(500...599).contains(code):
                return .fail(final: true)
            case .badContentEncoding where resumed:
                return .startOver
            case .unsupportedURL, .tooManyRedirects, .bodyTooLarge:
                return .fail(final: true)
            default:
                return backOff(retryAfter: error.retryAfter, history: &history, now: now)
            }
        case .startOver, .lengthMismatch:
            return backOff(retryAfter: nil, history: &history, now: now)
        }
    }

    /// HTTP statuses below 500 that a later attempt may get past.
    private static let retryableStatuses: Set<Int> = [408, 425, 429]

    /// Counts a failure without progress and picks the wait, or gives up when the count or the
    /// time budget is spent.
    private func backOff(retryAfter: Int?, history: inout History, now: ContinuousClock.Instant) -> Decision {
        history.failuresWithoutProgress += 1
        guard history.failuresWithoutProgress < retries else { return .fail(final: false) }
        let doublings = min(history.failuresWithoutProgress - 1, 16)
        var wait = min(firstWait * (1 << doublings), longestWait)
        // ±25% so many clients (or episodes) that failed together do not come back together.
        wait = wait * Double.random(in: 0.75...1.25)
        if let retryAfter { wait = max(wait, .seconds(retryAfter)) }
        let spent = now - (history.firstFailure ?? now)
        guard spent + wait <= budget else { return .fail(final: false) }
        return .resume(after: wait)
    }

    /// True for the errors that stop every download: no space, no quota, a read-only file
    /// system, or a file-size limit.
    public static func storageIsFull(_ code: Int32) -> Bool {
        [ENOSPC, EDQUOT, EROFS, EFBIG].contains(code)
    }
}
