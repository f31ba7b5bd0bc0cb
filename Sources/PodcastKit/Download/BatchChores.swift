/// When a running batch's periodic chores are due: asking its refill for more episodes, writing
/// progress for `status`, looking for pause and cancel requests, and finishing the files that are
/// ready as a group. A value of the batch's, changed on its thread only.
struct BatchChores {
    /// How often a running batch asks its refill for more episodes.
    static let refillInterval = Duration.seconds(1)
    /// How often the progress buffer learns where running downloads stand (for `status`).
    static let progressWriteInterval = Duration.seconds(1)
    /// How often the batch looks for pause and cancel requests addressed to its process.
    static let stopRequestPollInterval = Duration.seconds(1)
    /// A ready file waits at most this long to be finished with others: finishing many in one
    /// transaction costs little more than finishing one, and 2,000 small files finished one by one
    /// spent most of their time committing.
    static let finishingDelay = Duration.milliseconds(50)
    /// Ready files are finished at once when this many wait.
    static let finishingGroup = 64

    private var lastRefill: ContinuousClock.Instant
    private var lastProgressWrite: ContinuousClock.Instant
    private var lastStopRequestPoll: ContinuousClock.Instant
    /// When the files ready now are finished at the latest (nil: none is ready).
    private(set) var finishBy: ContinuousClock.Instant?
    /// Set once the user was told that progress records cannot be written.
    private var toldProgressUnrecorded = false

    init(now: ContinuousClock.Instant = .now) {
        lastRefill = now
        lastProgressWrite = now
        lastStopRequestPoll = now
    }

    /// Whether to ask the refill for more now: when the batch has nothing active, else once a
    /// second; the next turn counts from now when it is.
    mutating func refillDue(idle: Bool, now: ContinuousClock.Instant = .now) -> Bool {
        guard idle || now - lastRefill >= Self.refillInterval else { return false }
        lastRefill = now
        return true
    }

    /// Whether the others' progress is written with this snapshot.
    mutating func progressWriteDue(now: ContinuousClock.Instant = .now) -> Bool {
        guard now - lastProgressWrite >= Self.progressWriteInterval else { return false }
        lastProgressWrite = now
        return true
    }

    /// Whether to look for pause and cancel requests now.
    mutating func stopRequestPollDue(now: ContinuousClock.Instant = .now) -> Bool {
        guard now - lastStopRequestPoll >= Self.stopRequestPollInterval else { return false }
        lastStopRequestPoll = now
        return true
    }

    /// A file became ready: the group is finished within `finishingDelay` of the first one.
    mutating func fileReady(now: ContinuousClock.Instant = .now) {
        if finishBy == nil { finishBy = now + Self.finishingDelay }
    }

    /// Whether the `ready` files are finished now: when nothing else runs (`othersRunning` false),
    /// when they make a full group, or once the first of them waited long enough.
    func finishingDue(ready: Int, othersRunning: Bool, now: ContinuousClock.Instant = .now) -> Bool {
        guard ready > 0, let finishBy else { return false }
        return !othersRunning || ready >= Self.finishingGroup || now >= finishBy
    }

    /// The ready files were finished.
    mutating func finished() {
        finishBy = nil
    }

    /// When the batch's thread wakes at the latest while it waits for events: at the next
    /// finishing, and at the refill's next turn when there is a refill.
    func wakeBy(refilling: Bool) -> ContinuousClock.Instant? {
        let refillBy = refilling ? lastRefill + Self.refillInterval : nil
        return [finishBy, refillBy].compactMap { $0 }.min()
    }

    /// Whether to tell the user that progress records cannot be written: the first time only.
    mutating func tellProgressUnrecorded() -> Bool {
        defer { toldProgressUnrecorded = true }
        return !toldProgressUnrecorded
    }
}
