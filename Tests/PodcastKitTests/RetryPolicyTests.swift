import CCurl
import Glibc
@testable import PodcastHTTP
@testable import PodcastKit
@testable import PodcastPlatform
import Testing

/// `RetryPolicy.decide`: what follows a failed attempt, on a clock and a jitter the test sets.
@Suite(.timeLimit(.minutes(5))) struct RetryPolicyTests {
    private let policy = RetryPolicy(retries: 3, firstWait: .seconds(2), longestWait: .seconds(60), budget: .seconds(100))
    private let start = ContinuousClock.now
    private static let url = "http://127.0.0.1/a.mp3"

    private func failure(_ kind: FailedTransfer.Kind, bytes: Int64, received: Int64? = nil) -> FailedTransfer {
        FailedTransfer(id: 1, kind: kind, url: Self.url, bytes: bytes, received: received ?? bytes)
    }

    private func lost(bytes: Int64) -> FailedTransfer {
        failure(.http(.curl(CURLE_RECV_ERROR, url: Self.url, curlMessage: "", settings: HTTPSettings())), bytes: bytes)
    }

    private func status(_ code: Int, retryAfter: Int? = nil, bytes: Int64 = 0) -> FailedTransfer {
        failure(.http(.status(code, url: Self.url, retryAfter: retryAfter)), bytes: bytes, received: 0)
    }

    /// Decides for `failures` in order, `seconds` apart on the test's clock, with no jitter.
    private func decisions(_ failures: [FailedTransfer], seconds: Int = 0, history: inout RetryPolicy.History) -> [RetryPolicy.Decision] {
        failures.enumerated().map { index, failure in
            policy.decide(after: failure, resumed: true, history: &history, now: start + .seconds(index * seconds), jitter: 1)
        }
    }

    // MARK: Progress

    @Test func aDroppedConnectionThatGrewTheFileContinuesAtOnce() {
        var history = RetryPolicy.History()
        #expect(decisions([lost(bytes: 100_000)], history: &history) == [.resumeNow])
        #expect(history.failuresWithoutProgress == 0)
        #expect(history.bestOffset == 100_000)
    }

    /// Each attempt that gained at least a step resets the count, so a long file over a flaky line
    /// is never given up on.
    @Test func everyAttemptThatGrowsTheFileIsProgress() {
        var history = RetryPolicy.History()
        let growing = (1...10).map { lost(bytes: Int64($0) * RetryPolicy.progressStep) }
        #expect(decisions(growing, history: &history) == Array(repeating: .resumeNow, count: 10))
    }

    /// A server that resets every connection before sending anything is waited for, longer each
    /// time, and given up on, not asked again at once forever.
    @Test func aDroppedConnectionThatBroughtNothingBacksOffThenGivesUp() {
        var history = RetryPolicy.History()
        let result = decisions(Array(repeating: lost(bytes: 0), count: 3), history: &history)
        #expect(result == [.resume(after: .seconds(2)), .resume(after: .seconds(4)), .giveUp(attempts: 3)])
    }

    /// Received bytes that only fetch the same part again (a server that ignores Range and closes
    /// halfway) are no progress: the count goes on.
    @Test func fetchingTheSameBytesAgainIsNoProgress() {
        var history = RetryPolicy.History()
        let halfway = lost(bytes: 50_000 + RetryPolicy.progressStep)
        #expect(decisions([halfway, halfway, halfway, halfway], history: &history)
            == [.resumeNow, .resume(after: .seconds(2)), .resume(after: .seconds(4)), .giveUp(attempts: 3)])
    }

    /// A trickle (a few bytes per stalled attempt) is no progress either.
    @Test func aTrickleIsNoProgress() {
        var history = RetryPolicy.History(bestOffset: 1_000)
        let stalls = (1...3).map { lost(bytes: 1_000 + Int64($0) * 30) }
        #expect(decisions(stalls, history: &history) == [.resume(after: .seconds(2)), .resume(after: .seconds(4)), .giveUp(attempts: 3)])
    }

    /// What an earlier run left in the partial file is no progress of this run's attempts.
    @Test func theEarlierPartialFileIsNotProgress() {
        var history = RetryPolicy.History(bestOffset: 500_000)
        #expect(decisions([lost(bytes: 500_000)], history: &history) == [.resume(after: .seconds(2))])
    }

    // MARK: Starting over

    /// A partial file the answer cannot continue (the file changed) starts over at once the first
    /// time, uncounted; after that starting over waits and counts unless it gained something, so
    /// a server that answers every range with a changed file cannot loop.
    @Test func startingOverIsFreeOnceThenCountsUnlessItGainedSomething() {
        var history = RetryPolicy.History(bestOffset: 200_000)
        let changed = failure(.startOver("the file changed"), bytes: 200_000, received: 0)
        #expect(decisions([changed, changed, changed, changed], history: &history)
            == [.startOver(after: nil), .startOver(after: .seconds(2)), .startOver(after: .seconds(4)), .giveUp(attempts: 3)])
        var fresh = RetryPolicy.History()
        #expect(decisions([failure(.startOver("changed"), bytes: RetryPolicy.progressStep)], history: &fresh) == [.startOver(after: nil)])
    }

    // MARK: Waits

    @Test func waitsDoubleUpToTheLongestAndJitterScalesThem() {
        let patient = RetryPolicy(retries: 10, firstWait: .seconds(2), longestWait: .seconds(10), budget: .seconds(10_000))
        var history = RetryPolicy.History()
        let waits = (0..<5).map { _ in patient.decide(after: status(503), resumed: false, history: &history, now: start, jitter: 1) }
        #expect(waits == [2, 4, 8, 10, 10].map { .resume(after: .seconds($0)) })
        var jittered = RetryPolicy.History()
        #expect(patient.decide(after: status(503), resumed: false, history: &jittered, now: start, jitter: 0.75) == .resume(after: .milliseconds(1500)))
    }

    @Test func retryAfterIsHonouredEvenAfterProgress() {
        var history = RetryPolicy.History()
        #expect(decisions([status(429, retryAfter: 30, bytes: 1_000_000)], history: &history) == [.resume(after: .seconds(30))])
    }

    /// The time budget ends the retries even while the count allows more.
    @Test func theBudgetEndsTheRetries() {
        let budgeted = RetryPolicy(retries: 100, firstWait: .seconds(2), longestWait: .seconds(60), budget: .seconds(10))
        var history = RetryPolicy.History()
        let first = budgeted.decide(after: status(503), resumed: false, history: &history, now: start, jitter: 1)
        let late = budgeted.decide(after: status(503), resumed: false, history: &history, now: start + .seconds(9), jitter: 1)
        #expect(first == .resume(after: .seconds(2)))
        #expect(late == .giveUp(attempts: 2))
    }

    /// Once the retries are spent, the last answer's own advice ("try again in 2 s", from its
    /// Retry-After) is no advice any more: the line says what was tried, for how long, and what to do.
    @Test func givingUpSaysWhatWasTriedAndWhatToDoNotWhenToRetry() {
        let busy = status(503, retryAfter: 2)
        #expect(busy.reason.hasSuffix("try again in 2 s"))
        let line = busy.givingUp(attempts: 6, spent: .seconds(62))
        #expect(line == "gave up after 6 attempts in a row that gained nothing over 1 min 2 s: the server keeps answering 503 "
            + "(last: server answered 503 Service Unavailable for \(Self.url)); run podcast resume later to try again")
        #expect(failure(.noAnswer(.seconds(30)), bytes: 0).givingUp(attempts: 1, spent: .milliseconds(10))
            == "gave up after 1 attempt in a row that gained nothing: the server keeps failing "
            + "(last: no answer from \(Self.url) within 30 s); run podcast resume later to try again")
    }

    // MARK: Final failures

    @Test func missingFilesWebPagesAndOversizedBodiesFailForGood() {
        var history = RetryPolicy.History()
        #expect(decisions([status(404), status(410), failure(.htmlInsteadOfMedia, bytes: 0), failure(.tooLarge("far more"), bytes: 9)], history: &history)
            == Array(repeating: .fail(final: true), count: 4))
    }

    @Test func anExpiredSignedLinkGetsOneFreshTry() {
        var history = RetryPolicy.History()
        #expect(decisions([status(403), status(403)], history: &history) == [.askOriginalURL, .fail(final: true)])
    }

    @Test func aRefusalForWantOfCredentialsKeepsThePartialFileForARunThatGivesThem() {
        var history = RetryPolicy.History()
        #expect(decisions([status(401), status(401)], history: &history) == [.askOriginalURL, .fail(final: false)])
    }

    @Test func aFullDiskStopsEverything() {
        var history = RetryPolicy.History()
        let full = failure(.local(SystemError(call: "pwrite", code: ENOSPC)), bytes: 10)
        let denied = failure(.local(SystemError(call: "open", code: EACCES)), bytes: 0)
        #expect(decisions([full, denied], history: &history) == [.stopAll, .fail(final: false)])
    }
}

/// The decisions' names in these tests: what each attempt continues and when.
extension RetryPolicy.Decision {
    static let resumeNow = Self.attempt(fromPartial: true, after: nil)
    /// After a 401 or 403: the original enclosure URL is what every attempt asks.
    static let askOriginalURL = resumeNow
    static func resume(after wait: Duration) -> Self { .attempt(fromPartial: true, after: wait) }
    static func startOver(after wait: Duration?) -> Self { .attempt(fromPartial: false, after: wait) }
}
