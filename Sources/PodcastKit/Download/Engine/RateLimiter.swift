/// The run's speed cap, shared by every transfer: a token bucket that fills at the cap and holds
/// at most a quarter second's worth. Engine thread only.
///
/// libcurl's own cap (CURLOPT_MAX_RECV_SPEED_LARGE) is checked between its turns only, and in
/// one turn libcurl 7.88 reads for as long as the socket has data: a file that fits the socket's
/// buffer arrived whole at full speed, whatever the cap. This one is asked before every piece is
/// written; a transfer that may not take more pauses (CURL_WRITEFUNC_PAUSE, libcurl keeps the
/// piece) and the engine lets it go on once the bucket has bytes again: the one that has waited
/// longest first, so transfers share the cap rather than the first to ask taking all of it.
final class RateLimiter {
    private let bytesPerSecond: Double
    private let burst: Double
    /// Bytes that may be taken now; below zero, what was taken ahead of the cap.
    private var available: Double
    private var filledAt: ContinuousClock.Instant
    /// The last turn handed out to a transfer that began waiting.
    private var turns = 0

    init(bytesPerSecond: Int, now: ContinuousClock.Instant = .now) {
        self.bytesPerSecond = Double(max(1, bytesPerSecond))
        // Never less than one of libcurl's pieces (16 KiB), so every piece fits a full bucket.
        burst = max(16 * 1024, self.bytesPerSecond / 4)
        available = burst
        filledAt = now
    }

    /// True when bytes may be taken now (the one piece taken may overdraw the bucket).
    func allows(now: ContinuousClock.Instant = .now) -> Bool {
        fill(now: now)
        return available > 0
    }

    /// Counts `bytes` as taken.
    func take(_ bytes: Int) {
        available -= Double(bytes)
    }

    /// How long until bytes may be taken again; zero when they may now.
    func wait(now: ContinuousClock.Instant = .now) -> Duration {
        fill(now: now)
        return available > 0 ? .zero : .seconds((1 - available) / bytesPerSecond)
    }

    /// The turn of a transfer that begins waiting now: later than every turn handed out before.
    func nextTurn() -> Int {
        turns += 1
        return turns
    }

    private func fill(now: ContinuousClock.Instant) {
        let elapsed = (now - filledAt).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        available = min(burst, available + seconds * bytesPerSecond)
        filledAt = now
    }
}
