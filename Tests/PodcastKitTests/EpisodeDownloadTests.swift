import CCurl
import Glibc
@testable import PodcastHTTP
@testable import PodcastKit
@testable import PodcastPlatform
import Testing

/// `EpisodeDownload`: one episode's state machine, event by event, on a clock the test sets.
@Suite(.timeLimit(.minutes(5))) struct EpisodeDownloadTests {
    private static let url = "http://127.0.0.1:8080/media/one.mp3"
    private let start = ContinuousClock.now
    private let item = DownloadItem(
        number: 1, entry: ListingItem(number: 1, identity: "ep-1", title: "One", enclosureURL: url, enclosureLength: 4_000_000),
        feed: "http://127.0.0.1:8080/feed.xml", podcastTitle: "Show")

    /// A fresh episode, or one continuing `resume` of an earlier run's record.
    private func episode(resume: ResumePoint? = nil) -> EpisodeDownload {
        .fixture(item, url: Self.url, resume: resume)
    }

    private func scheduler(retries: Int = 3) -> RetryScheduler {
        RetryScheduler(policy: RetryPolicy(retries: retries, firstWait: .seconds(2)), now: { [start] in start }, jitter: { 1 })
    }

    private func response(
        total: Int64, etag: String? = "\"e1\"", startedOver: String? = nil, offset: Int64 = 0, awaitsGoAhead: Bool = false
    ) -> TransferResponse {
        TransferResponse(
            id: 1, offset: offset, total: total, effectiveURL: Self.url, etag: etag, lastModified: nil, encoded: false,
            startedOver: startedOver, awaitsGoAhead: awaitsGoAhead)
    }

    /// Room that is never short: the file system's free space is unknown.
    private let anyRoom = FreeSpaceCheck.Room(free: nil, floor: 0)
    private static let mebibyte: Int64 = 1 << 20

    private func lost(bytes: Int64) -> FailedTransfer {
        FailedTransfer(id: 1, kind: .http(.curl(CURLE_RECV_ERROR, url: Self.url, curlMessage: "", settings: HTTPSettings())), url: Self.url, bytes: bytes, received: bytes)
    }

    // MARK: Attempts

    @Test func theFirstAttemptContinuesTheEarlierPartialFile() {
        let resume = ResumePoint(offset: 1_000, etag: "\"e1\"", lastModified: nil, total: 4_000_000)
        var download = episode(resume: resume)
        #expect(download.begin() == [.transfer(resume: resume, notBefore: nil)])
        #expect(download.record.bytes == 1_000)
        var fresh = episode()
        #expect(fresh.begin() == [.transfer(resume: nil, notBefore: nil)])
    }

    @Test func aLargeAnswerIsRecordedAtOnceAndASmallOneIsNot() {
        var large = episode()
        _ = large.begin()
        #expect(large.responded(response(total: 4_000_000), now: start, room: anyRoom) == [.record])
        #expect(large.record.resume.etag == "\"e1\"")
        #expect(large.record.state == .downloading)
        var small = episode()
        _ = small.begin()
        #expect(small.responded(response(total: 50_000), now: start, room: anyRoom) == [])
    }

    @Test func anAnswerThatStartedOverSaysSoAndForgetsWhatWasDurable() {
        var download = episode(resume: ResumePoint(offset: 1_000, etag: "\"e1\"", lastModified: nil, total: 4_000_000))
        _ = download.begin()
        let actions = download.responded(response(total: 5_000_000, etag: "\"e2\"", startedOver: "the file changed"), now: start, room: anyRoom)
        #expect(actions == [.report(.warning(item, "started over: the file changed")), .record])
        #expect(download.record.bytes == 0 && download.record.resume.durableBytes == 0)
        #expect(download.record.resume.etag == "\"e2\"")
    }

    // MARK: Checkpoints

    @Test func checkpointsRecordTheValidatorFirstThenSyncBySizeOrTime() {
        var download = episode()
        let progress = { (bytes: Int64) in TransferProgress(id: 1, bytes: bytes, total: 40_000_000, speed: 1) }
        #expect(download.progressed(progress(10), now: start) == .none)
        _ = download.begin()
        _ = download.responded(response(total: 40_000_000), now: start, room: anyRoom)
        #expect(download.progressed(progress(100), now: start + .seconds(1)) == .progress)
        download.synced(100, durable: true)
        #expect(download.progressed(progress(20_000_000), now: start + .seconds(2)) == .sync(bytes: 20_000_000))
        download.synced(20_000_000, durable: false)
        #expect(download.record.resume.durableBytes == 100, "a failed sync vouches for nothing new")
        #expect(download.progressed(progress(20_000_100), now: start + .seconds(3)) == .sync(bytes: 20_000_100))
        download.synced(20_000_100, durable: true)
        #expect(download.progressed(progress(20_000_200), now: start + .seconds(4)) == .progress)
        #expect(download.progressed(progress(20_000_300), now: start + .seconds(14)) == .sync(bytes: 20_000_300))
    }

    @Test func theFirstProgressOfASmallAnswerRecordsItsValidatorWithoutASync() {
        var download = episode()
        _ = download.begin()
        _ = download.responded(response(total: 50_000), now: start, room: anyRoom)
        #expect(download.progressed(TransferProgress(id: 1, bytes: 10_000, total: 50_000, speed: 1), now: start) == .record)
        #expect(download.record.bytes == 10_000)
    }

    // MARK: Failures

    @Test func aDropThatGainedContinuesAtOnceFromWhereTheFileStops() {
        var download = episode()
        var retries = scheduler()
        _ = download.begin()
        _ = download.responded(response(total: 4_000_000), now: start, room: anyRoom)
        let actions = download.transferFailed(lost(bytes: 500_000), batchStop: nil, scheduler: &retries)
        #expect(actions == [.transfer(resume: ResumePoint(offset: 500_000, etag: "\"e1\"", lastModified: nil, total: 4_000_000), notBefore: nil)])
        #expect(download.received == 500_000)
    }

    @Test func aDropThatGainedNothingWaitsThenGivesUpSayingWhatTheServerKeepsDoing() {
        var download = episode()
        var retries = scheduler()
        _ = download.begin()
        let first = download.transferFailed(lost(bytes: 0), batchStop: nil, scheduler: &retries)
        #expect(first.last == .transfer(resume: nil, notBefore: start + .seconds(2)))
        guard case .report(.retrying(_, let until, _)) = first.first else { Issue.record("no retry reported: \(first)"); return }
        #expect(until == start + .seconds(2))
        _ = download.transferFailed(lost(bytes: 0), batchStop: nil, scheduler: &retries)
        let last = download.transferFailed(lost(bytes: 0), batchStop: nil, scheduler: &retries)
        guard case .end(.failed(let reason, 0, final: false)) = last.first, last.count == 1 else { Issue.record("not given up: \(last)"); return }
        #expect(reason.hasPrefix("gave up after 3 attempts in a row that gained nothing: the server keeps closing the connection"))
    }

    @Test func aMissingFileFailsForGoodAndAFullDiskStopsTheBatch() {
        var download = episode()
        var retries = scheduler()
        _ = download.begin()
        let missing = FailedTransfer(id: 1, kind: .http(.status(404, url: Self.url, retryAfter: nil)), url: Self.url)
        guard case .end(.failed(_, 0, final: true)) = download.transferFailed(missing, batchStop: nil, scheduler: &retries).first else {
            Issue.record("404 did not fail for good"); return
        }
        var full = episode()
        _ = full.begin()
        let noSpace = FailedTransfer(id: 1, kind: .local(SystemError(call: "pwrite", path: "/tmp/x/.partial/one.part", code: ENOSPC)), url: Self.url, bytes: 300)
        let actions = full.transferFailed(noSpace, batchStop: nil, scheduler: &retries)
        guard case .stopBatch(.storageFull(let why)) = actions.first, case .end(.paused(_, 300)) = actions.last else {
            Issue.record("a full disk did not stop the batch: \(actions)"); return
        }
        #expect(why.hasPrefix("cannot write /tmp/x/.partial/one.part"))
    }

    // MARK: Stops

    @Test func aPauseAskedWhileRunningStopsTheTransferAndPausesWhenItComesBack() {
        var download = episode()
        var retries = scheduler()
        _ = download.begin()
        #expect(download.stopAsked(.pause) == [.cancelTransfer])
        let cancelled = FailedTransfer(id: 1, kind: .cancelled, url: Self.url, bytes: 7_000, received: 7_000)
        #expect(download.transferFailed(cancelled, batchStop: nil, scheduler: &retries) == [.end(.paused(because: "paused", bytes: 7_000))])
    }

    @Test func aCancelAskedBeforeTheStartEndsAtOnce() {
        var download = episode()
        #expect(download.stopAskedBeforeStart(.cancel) == [.end(.cancelled)])
        #expect(download.phase == .ended)
        var stopped = episode()
        #expect(stopped.batchStoppedBeforeStart(.interrupted) == [.end(.paused(because: "interrupted", bytes: 0))])
    }

    @Test func aStoppedBatchPausesEveryFailedTransferInsteadOfRetrying() {
        var download = episode()
        var retries = scheduler()
        _ = download.begin()
        let cancelled = FailedTransfer(id: 1, kind: .cancelled, url: Self.url, bytes: 9_000)
        #expect(download.transferFailed(cancelled, batchStop: .interrupted, scheduler: &retries) == [.end(.paused(because: "interrupted", bytes: 9_000))])
    }

    // MARK: Room

    @Test func anAnswerLargerThanTheRoomStopsBeforeItsBodyAndPausesWithTheReason() throws {
        var download = episode()
        var retries = scheduler()
        _ = download.begin()
        let room = FreeSpaceCheck.Room(free: 8 * Self.mebibyte, floor: Self.mebibyte)
        let why = try #require(FreeSpaceCheck.problem(size: 9 * Self.mebibyte, have: 0, in: room))
        // The feed said 4 MB; the server says 9 MiB.
        let actions = download.responded(response(total: 9 * Self.mebibyte, awaitsGoAhead: true), now: start, room: room)
        #expect(actions == [.record, .cancelTransfer], "its validator and size are recorded, its body is never let go on")
        #expect(download.record.resume.total == 9 * Self.mebibyte && download.record.resume.etag == "\"e1\"")
        let stopped = FailedTransfer(id: 1, kind: .cancelled, url: Self.url, bytes: 0)
        #expect(download.transferFailed(stopped, batchStop: nil, scheduler: &retries) == [.end(.paused(because: why, bytes: 0))])
        #expect(download.phase == .ended)
    }

    @Test func aContinuedAnswerNeedsRoomOnlyForTheRestAndCountsTheRunningDownloads() throws {
        let resume = ResumePoint(offset: 3 * Self.mebibyte, etag: "\"e1\"", lastModified: nil, total: 5 * Self.mebibyte)
        let rest = response(total: 5 * Self.mebibyte, offset: 3 * Self.mebibyte, awaitsGoAhead: true)
        var fits = episode(resume: resume)
        _ = fits.begin()
        #expect(fits.responded(rest, now: start, room: FreeSpaceCheck.Room(free: 3 * Self.mebibyte, floor: Self.mebibyte)) == [.record, .goAhead])

        var crowded = episode(resume: resume)
        var retries = scheduler()
        _ = crowded.begin()
        let room = FreeSpaceCheck.Room(free: 3 * Self.mebibyte, reserved: Self.mebibyte, floor: Self.mebibyte)
        #expect(crowded.responded(rest, now: start, room: room) == [.record, .cancelTransfer])
        let why = try #require(FreeSpaceCheck.problem(size: 5 * Self.mebibyte, have: 3 * Self.mebibyte, in: room))
        #expect(why.contains("1.0 MiB of it for the downloads already running"), "\(why)")
        // The partial file keeps its 3 MiB, and the record still vouches for them.
        let stopped = FailedTransfer(id: 1, kind: .cancelled, url: Self.url, bytes: 3 * Self.mebibyte)
        #expect(crowded.transferFailed(stopped, batchStop: nil, scheduler: &retries) == [.end(.paused(because: why, bytes: 3 * Self.mebibyte))])
        #expect(crowded.record.resume.point(at: 3 * Self.mebibyte) == resume)
    }

    @Test func anAnswerThatFitsGoesOnAndOnlyAWaitingOneIsToldTo() {
        let room = FreeSpaceCheck.Room(free: 100 * Self.mebibyte, floor: Self.mebibyte)
        var waiting = episode()
        _ = waiting.begin()
        #expect(waiting.responded(response(total: 50_000, awaitsGoAhead: true), now: start, room: room) == [.goAhead])
        var writing = episode()
        _ = writing.begin()
        #expect(writing.responded(response(total: 50_000), now: start, room: room) == [])
    }

    @Test func aStopAlreadyAskedKeepsItsWayWhenTheAnswerDoesNotFit() {
        var download = episode()
        var retries = scheduler()
        _ = download.begin()
        #expect(download.stopAsked(.cancel) == [.cancelTransfer])
        let full = FreeSpaceCheck.Room(free: 0, floor: Self.mebibyte)
        #expect(download.responded(response(total: 50_000, awaitsGoAhead: true), now: start, room: full) == [], "neither let go on nor stopped twice")
        let stopped = FailedTransfer(id: 1, kind: .cancelled, url: Self.url, bytes: 0)
        #expect(download.transferFailed(stopped, batchStop: nil, scheduler: &retries) == [.end(.cancelled)])
    }

    @Test func anAnswerOfNoKnownSizeIsHeldToTheRoomAsItGrows() throws {
        var download = episode()
        var retries = scheduler()
        _ = download.begin()
        _ = download.transferStarted()
        let chunked = TransferResponse(
            id: 1, offset: 0, total: nil, effectiveURL: Self.url, etag: "\"e1\"", lastModified: nil, encoded: false, startedOver: nil)
        #expect(download.responded(chunked, now: start, room: FreeSpaceCheck.Room(free: 0, floor: Self.mebibyte)) == [], "no size to check yet")
        let step = 4 * Self.mebibyte
        let roomy = FreeSpaceCheck.Room(free: 5 * Self.mebibyte, floor: Self.mebibyte)
        #expect(download.grew(to: 4 * Self.mebibyte, room: roomy, step: step) == [.goAhead], "exactly another step above the floor")
        let tight = FreeSpaceCheck.Room(free: 5 * Self.mebibyte - 1, floor: Self.mebibyte)
        #expect(download.grew(to: 8 * Self.mebibyte, room: tight, step: step) == [.cancelTransfer])
        #expect(download.grew(to: 12 * Self.mebibyte, room: tight, step: step) == [], "stopped once")
        let why = try #require(FreeSpaceCheck.problem(growingFrom: 8 * Self.mebibyte, by: step, in: tight))
        #expect(why.hasPrefix("not enough room: the server gave no size, it has 8.0 MiB and "), "\(why)")
        let stopped = FailedTransfer(id: 1, kind: .cancelled, url: Self.url, bytes: 8 * Self.mebibyte)
        #expect(download.transferFailed(stopped, batchStop: nil, scheduler: &retries) == [.end(.paused(because: why, bytes: 8 * Self.mebibyte))])

        // An answer whose size was known was checked when it came.
        var sized = episode()
        _ = sized.begin()
        _ = sized.transferStarted()
        _ = sized.responded(response(total: 9 * Self.mebibyte), now: start, room: anyRoom)
        #expect(sized.grew(to: 8 * Self.mebibyte, room: tight, step: step) == [], "neither held nor stopped")
    }

    @Test func whatAnEpisodeInFlightStillNeedsIsTheServersSizeLessWhatItHas() {
        var download = episode()
        #expect(download.stillNeeded == 4_000_000, "the feed's length before the server answers")
        _ = download.begin()
        _ = download.responded(response(total: 9_000_000), now: start, room: anyRoom)
        _ = download.progressed(TransferProgress(id: 1, bytes: 2_000_000, total: 9_000_000, speed: 1), now: start)
        #expect(download.stillNeeded == 7_000_000)
        #expect(download.partialFolder == "/tmp/x/.partial")
    }

    // MARK: Digest

    @Test func aDigestMismatchFetchesOnceMoreThenFailsForGood() {
        var download = episode()
        _ = download.begin()
        let again = download.digestMismatched("sha256", batchStop: nil)
        #expect(again.dropFirst() == [.discardPartial, .transfer(resume: nil, notBefore: nil)])
        guard case .end(.failed(let reason, 0, final: true)) = download.digestMismatched("sha256", batchStop: nil).first else {
            Issue.record("second mismatch did not fail"); return
        }
        #expect(reason.contains("twice"))
    }

    // MARK: Endings

    @Test func aPausedRecordVouchesOnlyForWhatWasSynced() {
        let download = episode()
        let synced = download.closingRecord(.paused(because: "paused", bytes: 5_000), durable: true)
        #expect(synced.state == .paused && synced.bytes == 5_000 && synced.resume.durableBytes == 5_000)
        let unsynced = download.closingRecord(.paused(because: "paused", bytes: 5_000), durable: false)
        #expect(unsynced.bytes == 5_000 && unsynced.resume.durableBytes == 0)
        let final = download.closingRecord(.failed(because: "404", bytes: 5_000, final: true), durable: true)
        #expect(final.state == .failed && final.finalError && final.bytes == 0)
    }

    @Test func aResultSaysWhenItsRecordCouldNotBeWritten() {
        let download = episode()
        #expect(download.result(.paused(because: "paused", bytes: 1), note: "not recorded: disk I/O error").error == "paused (not recorded: disk I/O error)")
        #expect(download.result(.cancelled).state == .cancelled)
    }
}
