import Glibc

/// What a batch does after an attempt failed: the classification users hit in practice
/// (design notes): dropped connections continue at once, busy or unreachable servers are waited
/// for, expired signed links get one fresh try, missing files fail, a full disk stops everything.
public struct RetryPolicy: Sendable, Equatable {
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
        /// Another attempt, continuing the partial file (`fromPartial`) or fetching the whole file
        /// again, after `wait` (nil: now). Every attempt asks the feed's original enclosure URL,
        /// so one after a 401 or 403 gets a fresh signed link.
        case attempt(fromPartial: Bool, after: Duration?)
        /// The episode fails; `final` when no later `podcast resume` can help either.
        case fail(final: Bool)
        /// The episode fails after `attempts` in a row that gained nothing, or when its time
        /// budget is spent; `podcast resume` may try again later.
        case giveUp(attempts: Int)
        /// Stop every download: the disk is full or read-only.
        case stopAll
    }

    /// One episode's history of failures, kept by the batch between attempts.
    public struct History: Sendable, Equatable {
        /// Attempts in a row that gained nothing.
        public var failuresWithoutProgress = 0
        /// The longest the partial file has been: an attempt made progress only when it grew the
        /// file past this by `Self.progressStep` (an attempt that fetched the same bytes again,
        /// or a few bytes a minute, gained nothing).
        public var bestOffset: Int64 = 0
        /// Whether the original URL was already asked again after a 401/403.
        public var askedOriginalURL = false
        /// Whether the partial file was already given up once because the server's answer could
        /// not continue it (the file changed, ranges not served): that first start over is taken
        /// at once and not counted; a server that does it again and again is.
        public var startedOver = false
        /// When the episode first failed in this run (the budget counts from here).
        public var firstFailure: ContinuousClock.Instant?

        /// A fresh history for a partial file that holds `offset` bytes.
        public init(bestOffset: Int64 = 0) {
            self.bestOffset = bestOffset
        }
    }

    /// The least growth that counts as progress: a stalled server that trickles a few bytes per
    /// attempt, or one that closes every connection after a few kilobytes, is not making any.
    public static let progressStep: Int64 = 64 * 1024

    /// Decides after `failure` of an attempt that was `resumed` (asked for a range), updating
    /// `history`, with `now` the current instant and `jitter` a factor in 0.75...1.25 for the wait.
    public func decide(
        after failure: FailedTransfer, resumed: Bool, history: inout History,
        now: ContinuousClock.Instant = .now, jitter: Double = Double.random(in: 0.75...1.25)
    ) -> Decision {
        if history.firstFailure == nil { history.firstFailure = now }
        let progressed = failure.bytes >= history.bestOffset + Self.progressStep
        if progressed { history.failuresWithoutProgress = 0 }
        history.bestOffset = max(history.bestOffset, failure.bytes)
        // A retry that gained something goes at once; one that gained nothing waits and counts.
        func retry(_ next: Decision) -> Decision {
            progressed ? next : backOff(then: next, retryAfter: nil, history: &history, at: now, jitter: jitter)
        }
        switch failure.kind {
        case .cancelled:
            return .fail(final: false)
        case .local(let error):
            return Self.storageIsFull(error.code) ? .stopAll : .fail(final: false)
        case .htmlInsteadOfMedia, .tooLarge:
            return .fail(final: true)
        case .startOver:
            guard history.startedOver else {
                history.startedOver = true
                return .attempt(fromPartial: false, after: nil)
            }
            return retry(.attempt(fromPartial: false, after: nil))
        case .lengthMismatch:
            return retry(.attempt(fromPartial: true, after: nil))
        case .noAnswer, .overTime:
            return backOff(then: .attempt(fromPartial: true, after: nil), retryAfter: nil, history: &history, at: now, jitter: jitter)
        case .http(let error):
            switch error.kind {
            case .status(let code) where code == 401 || code == 403:
                // A 401 wants credentials, which a run that names the feed with them sends
                // (`URLCredentials`: they are kept for one run only): its partial file is kept
                // for that run to go on from. A 403 refuses whoever asks.
                guard !history.askedOriginalURL else { return .fail(final: code == 403) }
                history.askedOriginalURL = true
                return .attempt(fromPartial: true, after: nil)
            case .status(let code) where !Self.retryableStatuses.contains(code) && !(500...599).contains(code):
                return .fail(final: true)
            case .unsupportedURL, .tooManyRedirects, .insecureRedirect, .bodyTooLarge:
                return .fail(final: true)
            case .badContentEncoding where resumed:
                return retry(.attempt(fromPartial: false, after: nil))
            case .connectionLost, .timedOut:
                return retry(.attempt(fromPartial: true, after: nil))
            default:
                // Busy or unreachable servers are waited for even after progress: asking again
                // at once would only meet the same answer.
                return backOff(then: .attempt(fromPartial: true, after: nil), retryAfter: error.retryAfter, history: &history, at: now, jitter: jitter)
            }
        }
    }

    /// HTTP statuses below 500 that a later attempt may get past.
    private static let retryableStatuses: Set<Int> = [408, 425, 429]

    /// Counts a failure without progress and waits before `next`, or gives up when the count or
    /// the time budget is spent.
    private func backOff(
        then next: Decision, retryAfter: Int?, history: inout History, at now: ContinuousClock.Instant, jitter: Double
    ) -> Decision {
        history.failuresWithoutProgress += 1
        let attempts = history.failuresWithoutProgress
        guard attempts < retries else { return .giveUp(attempts: attempts) }
        let doublings = min(attempts - 1, 16)
        var wait = min(firstWait * (1 << doublings), longestWait)
        // ±25% so many clients (or episodes) that failed together do not come back together.
        wait = wait * jitter
        if let retryAfter { wait = max(wait, .seconds(retryAfter)) }
        let spent = now - (history.firstFailure ?? now)
        guard spent + wait <= budget else { return .giveUp(attempts: attempts) }
        guard case .attempt(let fromPartial, _) = next else { return next }
        return .attempt(fromPartial: fromPartial, after: wait)
    }

    /// True for the errors that stop every download: no space, no quota, a read-only file
    /// system, or a file-size limit.
    public static func storageIsFull(_ code: Int32) -> Bool {
        [ENOSPC, EDQUOT, EROFS, EFBIG].contains(code)
    }
}
