import CCurl
import Glibc
@testable import PodcastHTTP
@testable import PodcastKit
@testable import PodcastPlatform
import Testing

/// `CompanionFetch.retry`: what follows a failed companion transfer (a transcript, chapters,
/// artwork). The batch's retry scheduler decides as for episodes; an attempt continues the partial
/// file only when a validator vouches for it; a companion that cannot be fetched is dropped with a
/// warning (the episode stays), and silently when the batch stopped. On a clock the test sets.
@Suite(.timeLimit(.minutes(5))) struct CompanionFetchTests {
    private static let url = "http://127.0.0.1:8080/one.vtt"
    private let start = ContinuousClock.now
    private let item = DownloadItem(
        number: 1, entry: ListingItem(number: 1, identity: "ep-1", title: "One", enclosureURL: "http://127.0.0.1:8080/one.mp3", enclosureLength: nil),
        feed: "http://127.0.0.1:8080/feed.xml", podcastTitle: "Show")

    /// A transcript being fetched, its earlier answer having given `etag`.
    private func transcript(etag: String? = "\"c1\"") -> CompanionFetch {
        var fetch = CompanionFetch(
            item: item, kind: .transcript, url: Self.url, partialPath: "/tmp/x/.partial/one.vtt.part", folder: "/tmp/x/Show",
            stem: "One", fileExtension: "vtt")
        fetch.resume.etag = etag
        fetch.resume.total = 500_000
        return fetch
    }

    private func scheduler(retries: Int = 3) -> RetryScheduler {
        RetryScheduler(policy: RetryPolicy(retries: retries, firstWait: .seconds(2)), now: { [start] in start }, jitter: { 1 })
    }

    private func failure(_ kind: FailedTransfer.Kind, bytes: Int64 = 0) -> FailedTransfer {
        FailedTransfer(id: CompanionFiles.firstID, kind: kind, url: Self.url, bytes: bytes, received: bytes)
    }

    private func dropped(bytes: Int64) -> FailedTransfer {
        failure(.http(.curl(CURLE_RECV_ERROR, url: Self.url, curlMessage: "", settings: HTTPSettings())), bytes: bytes)
    }

    @Test func aDropAfterProgressContinuesAtOnceFromThePartialFile() {
        var fetch = transcript()
        var scheduler = scheduler()
        let next = fetch.retry(after: dropped(bytes: 100_000), batchStopped: false, scheduler: &scheduler)
        #expect(next == .attempt(resume: ResumePoint(offset: 100_000, etag: "\"c1\"", lastModified: nil, total: 500_000), notBefore: nil))
        #expect(fetch.resumed)
    }

    @Test func withoutAValidatorTheRetryStartsFromByteZero() {
        var fetch = transcript(etag: "W/\"weak\"")
        var scheduler = scheduler()
        let next = fetch.retry(after: dropped(bytes: 100_000), batchStopped: false, scheduler: &scheduler)
        #expect(next == .attempt(resume: nil, notBefore: nil))
        #expect(!fetch.resumed)
    }

    @Test func aDropWithoutProgressWaitsBeforeTheNextAttempt() {
        var fetch = transcript()
        var scheduler = scheduler()
        let next = fetch.retry(after: dropped(bytes: 0), batchStopped: false, scheduler: &scheduler)
        #expect(next == .attempt(resume: nil, notBefore: start + .seconds(2)))
        #expect(fetch.history.failuresWithoutProgress == 1)
    }

    @Test func aMissingFileIsDroppedWithAWarningAndTheEpisodeKept() {
        var fetch = transcript()
        var scheduler = scheduler()
        let missing = failure(.http(.status(404, url: Self.url, retryAfter: nil)))
        let next = fetch.retry(after: missing, batchStopped: false, scheduler: &scheduler)
        #expect(next == .drop(warning: "its transcript was not saved (\(missing.reason)); the episode is kept without it"))
    }

    @Test func aServerThatNeverAnswersIsGivenUpAfterTheRetries() {
        var fetch = transcript()
        var scheduler = scheduler(retries: 2)
        let silent = failure(.noAnswer(.seconds(30)))
        #expect(fetch.retry(after: silent, batchStopped: false, scheduler: &scheduler) == .attempt(resume: nil, notBefore: start + .seconds(2)))
        #expect(fetch.retry(after: silent, batchStopped: false, scheduler: &scheduler)
            == .drop(warning: "its transcript was not saved (\(silent.reason)); the episode is kept without it"))
    }

    @Test func aFullDiskDropsTheCompanionWithAWarningRatherThanStoppingTheBatch() {
        var fetch = transcript()
        var scheduler = scheduler()
        let full = failure(.local(SystemError(call: "write", path: "/tmp/x/.partial/one.vtt.part", code: ENOSPC)))
        #expect(fetch.retry(after: full, batchStopped: false, scheduler: &scheduler)
            == .drop(warning: "its transcript was not saved (\(full.reason)); the episode is kept without it"))
    }

    @Test func aCompanionOverItsLimitIsToldTheFixedLimitNotToRaiseMaxSize() throws {
        var fetch = transcript()
        var scheduler = scheduler()
        let request = fetch.request(id: CompanionFiles.firstID, resume: nil, notBefore: nil)
        #expect(request.maxSize == 64 * 1024 * 1024 && request.sizeCap == .companionFile)
        let limit = BodyLimit.forBody(serverLength: 100_000_000, feedLength: nil, maxSize: request.maxSize, cap: request.sizeCap)
        let next = fetch.retry(after: failure(.tooLarge(limit.reason(url: Self.url))), batchStopped: false, scheduler: &scheduler)
        let warning = "its transcript was not saved (the file from \(Self.url) is larger than 64.0 MiB, the fixed limit of "
            + "companion files (transcripts, chapters, artwork); nothing was kept); the episode is kept without it"
        #expect(next == .drop(warning: warning))
        #expect(!warning.contains("--max-size"))
    }

    @Test func aStoppedBatchDropsItSilentlyWithoutCountingAFailure() {
        var fetch = transcript()
        var scheduler = scheduler()
        #expect(fetch.retry(after: dropped(bytes: 100_000), batchStopped: true, scheduler: &scheduler) == .drop(warning: nil))
        #expect(fetch.history.firstFailure == nil, "the scheduler was not asked")
        #expect(!fetch.resumed)
    }
}
