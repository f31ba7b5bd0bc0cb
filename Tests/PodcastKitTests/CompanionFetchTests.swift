import CCurl
import Glibc
@testable import PodcastHTTP
@testable import PodcastKit
@testable import PodcastPlatform
import Testing

/// `CompanionFetch`: one companion file's state machine (a transcript, chapters, artwork), event
/// by event. The batch's retry scheduler decides as for episodes; an attempt continues the partial
/// file only when a validator vouches for it; a companion that cannot be fetched is dropped with a
/// warning (the episode stays), and silently when the batch stopped. On a clock the test sets.
@Suite(.timeLimit(.minutes(5))) struct CompanionFetchTests {
    private static let url = "http://127.0.0.1:8080/one.vtt"
    private let start = ContinuousClock.now
    private let id = TransferID(episode: 3, companion: 1)
    private let file = CompanionFile(
        kind: .transcript, url: url, content: .text(fileExtension: "vtt"), partialPath: "/tmp/x/Show/.podcast-1-one.tmp",
        folder: "/tmp/x/Show", stem: "One")

    /// A transcript being fetched, its first answer having given `etag`.
    private func transcript(etag: String? = "\"c1\"") -> CompanionFetch {
        var fetch = CompanionFetch(id: id, file: file)
        _ = fetch.begin()
        fetch.responded(TransferResponse(
            id: id.raw, offset: 0, total: 500_000, effectiveURL: Self.url, etag: etag, lastModified: nil, encoded: false, startedOver: nil))
        return fetch
    }

    private func scheduler(retries: Int = 3) -> RetryScheduler {
        RetryScheduler(policy: RetryPolicy(retries: retries, firstWait: .seconds(2)), now: { [start] in start }, jitter: { 1 })
    }

    private func failure(_ kind: FailedTransfer.Kind, bytes: Int64 = 0) -> FailedTransfer {
        FailedTransfer(id: id.raw, kind: kind, url: Self.url, bytes: bytes, received: bytes)
    }

    private func dropped(bytes: Int64) -> FailedTransfer {
        failure(.http(.curl(CURLE_RECV_ERROR, url: Self.url, curlMessage: "", settings: HTTPSettings())), bytes: bytes)
    }

    /// The request an attempt continuing `resume`, not before `notBefore`, hands the engine.
    private func request(resume: ResumePoint? = nil, notBefore: ContinuousClock.Instant? = nil) -> TransferRequest {
        var request = TransferRequest(
            id: id.raw, url: Self.url, partialPath: file.partialPath, expectsMedia: false, resume: resume, notBefore: notBefore,
            writesBack: false, maxSize: 64 * 1024 * 1024)
        request.sizeCap = .companionFile
        return request
    }

    @Test func theFirstAttemptGoesUnderItsOwnIdWithTheFixedCompanionLimit() {
        var fetch = CompanionFetch(id: id, file: file)
        #expect(fetch.begin() == [.transfer(request())])
        #expect(fetch.phase == .fetching)
        #expect(request().id != 3 && TransferID(request().id) == id, "its episode's and its own number, not the episode's media id")
    }

    @Test func aDropAfterProgressContinuesAtOnceFromThePartialFile() {
        var fetch = transcript()
        var scheduler = scheduler()
        let next = fetch.failed(dropped(bytes: 100_000), batchStopped: false, scheduler: &scheduler)
        #expect(next == [.transfer(request(resume: ResumePoint(offset: 100_000, etag: "\"c1\"", lastModified: nil, total: 500_000)))])
        #expect(fetch.resumed && fetch.phase == .fetching)
    }

    @Test func withoutAValidatorTheRetryStartsFromByteZero() {
        var fetch = transcript(etag: "W/\"weak\"")
        var scheduler = scheduler()
        #expect(fetch.failed(dropped(bytes: 100_000), batchStopped: false, scheduler: &scheduler) == [.transfer(request())])
        #expect(!fetch.resumed)
    }

    @Test func aDropWithoutProgressWaitsBeforeTheNextAttempt() {
        var fetch = transcript()
        var scheduler = scheduler()
        #expect(fetch.failed(dropped(bytes: 0), batchStopped: false, scheduler: &scheduler) == [.transfer(request(notBefore: start + .seconds(2)))])
        #expect(fetch.phase == .waitingToRetry(until: start + .seconds(2)))
        #expect(fetch.history.failuresWithoutProgress == 1)
        fetch.started()
        #expect(fetch.phase == .fetching)
    }

    @Test func aMissingFileIsDroppedWithAWarningAndTheEpisodeKept() {
        var fetch = transcript()
        var scheduler = scheduler()
        let missing = failure(.http(.status(404, url: Self.url, retryAfter: nil)))
        #expect(fetch.failed(missing, batchStopped: false, scheduler: &scheduler) == [
            .drop(file, warning: "its transcript was not saved (\(missing.reason)); the episode is kept without it")
        ])
        #expect(fetch.phase == .ended)
        #expect(fetch.failed(missing, batchStopped: false, scheduler: &scheduler) == [], "an ended fetch takes no more events")
    }

    @Test func aServerThatNeverAnswersIsGivenUpAfterTheRetries() {
        var fetch = transcript()
        var scheduler = scheduler(retries: 2)
        let silent = failure(.noAnswer(.seconds(30)))
        #expect(fetch.failed(silent, batchStopped: false, scheduler: &scheduler) == [.transfer(request(notBefore: start + .seconds(2)))])
        #expect(fetch.failed(silent, batchStopped: false, scheduler: &scheduler) == [
            .drop(file, warning: "its transcript was not saved (\(silent.reason)); the episode is kept without it")
        ])
    }

    @Test func aFullDiskDropsTheCompanionWithAWarningRatherThanStoppingTheBatch() {
        var fetch = transcript()
        var scheduler = scheduler()
        let full = failure(.local(SystemError(call: "write", path: file.partialPath, code: ENOSPC)))
        #expect(fetch.failed(full, batchStopped: false, scheduler: &scheduler) == [
            .drop(file, warning: "its transcript was not saved (\(full.reason)); the episode is kept without it")
        ])
    }

    @Test func aStoppedBatchDropsItSilentlyWithoutCountingAFailure() {
        var fetch = transcript()
        var scheduler = scheduler()
        #expect(fetch.failed(dropped(bytes: 100_000), batchStopped: true, scheduler: &scheduler) == [.drop(file, warning: nil)])
        #expect(fetch.history.firstFailure == nil, "the scheduler was not asked")
        #expect(fetch.phase == .ended)
    }

    @Test func aCompanionOverItsLimitIsToldTheFixedLimitNotToRaiseMaxSize() throws {
        var fetch = transcript()
        var scheduler = scheduler()
        let limit = BodyLimit.forBody(serverLength: 100_000_000, feedLength: nil, maxSize: request().maxSize, cap: request().sizeCap)
        let actions = fetch.failed(failure(.tooLarge(limit.reason(url: Self.url))), batchStopped: false, scheduler: &scheduler)
        guard case .drop(_, let warning?)? = actions.first else { Issue.record("not dropped with a warning: \(actions)"); return }
        #expect(warning == "its transcript was not saved (the file from \(Self.url) is larger than 64.0 MiB, the fixed limit of "
            + "companion files (transcripts, chapters, artwork); nothing was kept); the episode is kept without it")
        #expect(!warning.contains("--max-size"))
    }

    @Test func aCompleteFileIsHandedOverToBeSavedOnce() {
        var fetch = transcript()
        let done = CompletedTransfer(id: id.raw, bytes: 500_000, received: 500_000, effectiveURL: Self.url, contentType: "text/vtt")
        #expect(fetch.completed(done) == [.save(file, done)])
        #expect(fetch.phase == .ended)
        #expect(fetch.completed(done) == [])
    }
}

/// `TransferID`: whose transfer an engine request of a batch is, packed in the engine's `Int`.
@Suite(.timeLimit(.minutes(5))) struct TransferIDTests {
    @Test func anEpisodesMediaIsKeyedByItsIndex() {
        #expect(TransferID(episode: 7).raw == 7)
        #expect(TransferID(7) == TransferID(episode: 7))
        #expect(TransferID(7).companion == nil)
    }

    @Test func aCompanionsIdCarriesItsEpisodeAndItsNumber() {
        for (episode, number) in [(0, 0), (7, 3), ((1 << 40) - 1, 1_022)] {
            let id = TransferID(episode: episode, companion: number)
            #expect(TransferID(id.raw) == id)
            #expect(id.raw != episode)
            #expect(id.raw < FeedRound.firstID && !FeedRound.owns(id.raw), "never a feed's")
        }
        #expect(TransferID(episode: 7, companion: 0).raw != TransferID(episode: 7, companion: 1).raw)
    }
}
