/// When a failed episode is tried again: `RetryPolicy`'s decision turned into an instant, held back
/// further for a host that asked (Retry-After) not to be asked again before then. The clock and
/// the jitter are injected, so tests see exact instants.
struct RetryScheduler {
    /// What follows a failed attempt.
    enum Next: Equatable {
        /// Another attempt, continuing the partial file (`fromPartial`) or from byte 0, not before
        /// `notBefore` (nil: at once).
        case attempt(fromPartial: Bool, notBefore: ContinuousClock.Instant?)
        /// The episode fails; `final` when no later `podcast resume` can help either.
        case fail(final: Bool)
        /// The episode fails after `attempts` that gained nothing, or its budget is spent;
        /// `spent` since its first failure.
        case giveUp(attempts: Int, spent: Duration)
        /// Every download stops: the disk is full or read-only.
        case stopAll
    }

    let policy: RetryPolicy
    /// The current instant.
    let now: () -> ContinuousClock.Instant
    /// A factor in 0.75...1.25 for each wait, so episodes that failed together do not come back together.
    let jitter: () -> Double
    /// Hosts that asked (Retry-After) not to be asked again before an instant.
    private var hostsWaiting: [String: ContinuousClock.Instant] = [:]

    init(policy: RetryPolicy, now: @escaping () -> ContinuousClock.Instant = { .now }, jitter: @escaping () -> Double = { .random(in: 0.75...1.25) }) {
        self.policy = policy
        self.now = now
        self.jitter = jitter
    }

    /// What follows `failure` of an attempt that was `resumed`, for an episode fetched from `url`.
    mutating func next(after failure: FailedTransfer, resumed: Bool, history: inout RetryPolicy.History, url: String) -> Next {
        let now = now()
        switch policy.decide(after: failure, resumed: resumed, history: &history, now: now, jitter: jitter()) {
        case .attempt(let fromPartial, nil):
            return .attempt(fromPartial: fromPartial, notBefore: nil)
        case .attempt(let fromPartial, let wait?):
            return .attempt(fromPartial: fromPartial, notBefore: until(now + wait, for: failure, url: url))
        case .fail(let final):
            return .fail(final: final)
        case .giveUp(let attempts):
            return .giveUp(attempts: attempts, spent: now - (history.firstFailure ?? now))
        case .stopAll:
            return .stopAll
        }
    }

    /// `instant`, or later when the host asked to wait longer; a Retry-After answer holds the whole
    /// host back until then.
    private mutating func until(_ instant: ContinuousClock.Instant, for failure: FailedTransfer, url: String) -> ContinuousClock.Instant {
        let host = TransferRequest.host(of: url)
        if case .http(let error) = failure.kind, error.retryAfter != nil {
            hostsWaiting[host] = instant
        }
        return max(instant, hostsWaiting[host] ?? instant)
    }

}
