import CCurl
@testable import PodcastKit
import Testing

/// `EpisodeDownload.phase`: the whole lifecycle of one episode, event by event, from its first
/// attempt to its end, without a server or a disk.
@Suite(.timeLimit(.minutes(5))) struct EpisodeLifecycleTests {
    private static let url = "http://127.0.0.1:8080/media/one.mp3"
    private let start = ContinuousClock.now
    private let item = DownloadItem(
        number: 1, entry: ListingItem(number: 1, identity: "ep-1", title: "One", enclosureURL: url, enclosureLength: 4_000),
        feed: "http://127.0.0.1:8080/feed.xml", podcastTitle: "Show")
    private let done = CompletedTransfer(id: 1, bytes: 4_000, received: 4_000, effectiveURL: url, etag: "\"e1\"")
    private let file = FinishedFile(bytes: 4_000, sha256: String(repeating: "a", count: 64), source: "/tmp/x/.partial/one.part")

    /// Companion files of the episode: its transcript and its artwork.
    private let transcript = CompanionFile(
        kind: .transcript, url: "http://127.0.0.1:8080/one.srt", content: .text(fileExtension: "srt"),
        partialPath: "/tmp/x/Show/.podcast-1-t.tmp", folder: "/tmp/x/Show", stem: "one")
    private let artwork = CompanionFile(
        kind: .image, url: "http://127.0.0.1:8080/one.png", content: .image, partialPath: "/tmp/x/Show/.podcast-1-i.tmp",
        folder: "/tmp/x/Show", stem: "one")

    private func scheduler() -> RetryScheduler {
        RetryScheduler(policy: RetryPolicy(retries: 3, firstWait: .seconds(2)), now: { [start] in start }, jitter: { 1 })
    }

    private func lost(bytes: Int64) -> FailedTransfer {
        FailedTransfer(id: 1, kind: .http(.status(503, url: Self.url, retryAfter: nil)), url: Self.url, bytes: bytes, received: bytes)
    }

    /// An episode whose transfer completed: it is preparing its file.
    private func completed() -> EpisodeDownload {
        var download = EpisodeDownload.fixture(item, url: Self.url)
        _ = download.begin()
        _ = download.transferStarted()
        _ = download.transferCompleted(done)
        return download
    }

    @Test func aDownloadGoesFromQueuedToEndedThroughEveryPhase() {
        var download = EpisodeDownload.fixture(item, url: Self.url)
        _ = download.begin()
        #expect(download.phase == .queued && download.phase.holdsTransferSlot)
        _ = download.transferStarted()
        #expect(download.phase == .transferring)
        let asked = download.transferCompleted(done)
        #expect(download.phase == .preparing(done) && !download.phase.holdsTransferSlot)
        #expect(asked == [.prepare(FilePreparation(id: 1, path: download.partialPath, bytes: 4_000, integrity: nil, tags: nil))])
        #expect(download.prepared(.ready(file, untagged: nil), batchStop: nil) == [])
        #expect(download.phase == .finishing(done, file))
        download.placed(at: "/tmp/x/Show/one.mp3", file: file)
        let result = DownloadResult(item: item, state: .downloaded, path: "/tmp/x/Show/one.mp3", bytes: 4_000, error: nil, fileSize: 4_000)
        #expect(download.phase == .completing(result, companions: []) && !download.phase.holdsTransferSlot)
        #expect(download.record.state == .downloaded && download.record.path == "/tmp/x/Show/one.mp3")
        #expect(download.record.sha256 == file.sha256 && download.record.bytes == 4_000)
        #expect(download.fetchCompanions([], batchStop: nil) == [.settle(result)], "without companions, settled at once")
        #expect(download.phase == .ended)
    }

    @Test func aFailedAttemptWaitsToRetryAndHoldsNoTransferSlotMeanwhile() {
        var download = EpisodeDownload.fixture(item, url: Self.url)
        var retries = scheduler()
        _ = download.begin()
        _ = download.transferStarted()
        let actions = download.transferFailed(lost(bytes: 0), batchStop: nil, scheduler: &retries)
        guard case .transfer(_, let notBefore?)? = actions.last else { Issue.record("no delayed attempt: \(actions)"); return }
        #expect(download.phase == .waitingToRetry(until: notBefore))
        #expect(!download.phase.holdsTransferSlot)
        _ = download.transferStarted()
        #expect(download.phase == .transferring)
    }

    @Test func aTagAskedForAndTheFeedsDigestGoToThePreparation() throws {
        var settings = LibrarySettings()
        settings.tag = true
        let check = try #require(Integrity.Check(type: "sri", value: "sha256-" + String(repeating: "A", count: 43) + "="))
        var entry = item.entry
        entry.integrity = Integrity(type: "sri", value: "sha256-" + String(repeating: "A", count: 43) + "=")
        let tagged = DownloadItem(number: 1, entry: entry, feed: item.feed, podcastTitle: "Show", library: settings)
        var download = EpisodeDownload.fixture(tagged, url: Self.url)
        _ = download.begin()
        guard case .prepare(let job)? = download.transferCompleted(done).first else { Issue.record("no preparation"); return }
        #expect(job.integrity == check)
        #expect(job.tags?.title == "One" && job.tags?.album == "Show")
    }

    @Test func aFileThatCouldNotBeTaggedIsPlacedAsServedWithAWarning() {
        var download = completed()
        #expect(download.prepared(.ready(file, untagged: "TagLib cannot open it"), batchStop: nil) == [
            .report(.warning(item, "kept untagged: TagLib cannot open it"))
        ])
        #expect(download.phase == .finishing(done, file))
    }

    @Test func aFileThatCannotBeReadFailsKeepingItsPartialFileForResume() {
        var download = completed()
        #expect(download.prepared(.failed("read /tmp/x: EIO"), batchStop: nil) == [
            .end(.failed(because: "read /tmp/x: EIO", bytes: 4_000, final: false))
        ])
        #expect(download.phase == .ended)
    }

    @Test func aMismatchWithTheFeedsDigestFetchesAgainFromByteZero() {
        var download = completed()
        let actions = download.prepared(.mismatched(check: "sha256"), batchStop: nil)
        #expect(actions.suffix(2) == [.discardPartial, .transfer(resume: nil, notBefore: nil)])
        #expect(download.phase == .queued)
    }

    @Test func aFailedPlacingFailsTheEpisodeKeepingItsPartialFile() {
        var download = completed()
        _ = download.prepared(.ready(file, untagged: nil), batchStop: nil)
        #expect(download.placingFailed("rename: EXDEV") == [.end(.failed(because: "rename: EXDEV", bytes: 4_000, final: false))])
        #expect(download.phase == .ended)
    }

    @Test func aStopAskedWhileTheFileIsPreparedIsCarriedOutWhenItFailsTheFeedsDigest() {
        var paused = completed()
        #expect(paused.stopAsked(.pause) == [])
        #expect(paused.prepared(.mismatched(check: "sha256"), batchStop: nil).suffix(2) == [
            .discardPartial, .end(.paused(because: "paused", bytes: 0)),
        ], "paused instead of fetched again")
        var cancelled = completed()
        _ = cancelled.stopAsked(.cancel)
        #expect(cancelled.prepared(.mismatched(check: "sha256"), batchStop: nil).last == .end(.cancelled))
        var placed = completed()
        _ = placed.stopAsked(.pause)
        #expect(placed.prepared(.ready(file, untagged: nil), batchStop: nil) == [], "a good file is placed all the same")
        #expect(placed.phase == .finishing(done, file))
    }

    @Test func aCompleteFileIsPastStoppingAndAPreparationOutOfTurnIsIgnored() {
        var download = completed()
        #expect(download.stopAsked(.cancel) == [])
        _ = download.prepared(.ready(file, untagged: nil), batchStop: nil)
        #expect(download.stopAsked(.pause) == [])
        #expect(download.prepared(.failed("late"), batchStop: nil) == [], "only a preparing episode takes an outcome")
        #expect(download.phase == .finishing(done, file))
        var running = EpisodeDownload.fixture(item, url: Self.url)
        _ = running.begin()
        _ = running.transferStarted()
        #expect(running.stopAsked(.pause) == [.cancelTransfer])
    }

    // MARK: Companion files

    /// An episode whose file is in place at `/tmp/x/Show/one.mp3`, and its result.
    private func placed() -> (EpisodeDownload, DownloadResult) {
        var download = completed()
        _ = download.prepared(.ready(file, untagged: nil), batchStop: nil)
        download.placed(at: "/tmp/x/Show/one.mp3", file: file)
        return (download, DownloadResult(item: item, state: .downloaded, path: "/tmp/x/Show/one.mp3", bytes: 4_000, error: nil, fileSize: 4_000))
    }

    /// What companion `number` of episode 1 hands the engine first.
    private func firstRequest(_ companion: CompanionFile, _ number: Int) -> CompanionFetch.Action {
        var fetch = CompanionFetch(id: TransferID(episode: 1, companion: number), file: companion)
        return fetch.begin()[0]
    }

    @Test func anEpisodeInPlaceIsSettledOnlyOnceEveryCompanionEnded() {
        var (download, result) = placed()
        var retries = scheduler()
        #expect(download.fetchCompanions([transcript, artwork], batchStop: nil) == [
            .companion(firstRequest(transcript, 0)), .companion(firstRequest(artwork, 1)),
        ])
        guard case .completing(result, let companions) = download.phase else { Issue.record("not completing: \(download.phase)"); return }
        #expect(companions.map(\.phase) == [.fetching, .fetching])
        #expect(companions.map(\.id) == [TransferID(episode: 1, companion: 0), TransferID(episode: 1, companion: 1)])
        let arrived = CompletedTransfer(id: TransferID(episode: 1, companion: 1).raw, bytes: 300, received: 300, effectiveURL: artwork.url)
        #expect(download.companionCompleted(1, arrived) == [.companion(.save(artwork, arrived))], "not settled: the transcript runs")
        let missing = FailedTransfer(
            id: TransferID(episode: 1, companion: 0).raw, kind: .http(.status(404, url: transcript.url, retryAfter: nil)), url: transcript.url)
        #expect(download.companionFailed(0, missing, batchStop: nil, scheduler: &retries) == [
            .companion(.drop(transcript, warning: "its transcript was not saved (\(missing.reason)); the episode is kept without it")),
            .settle(result),
        ], "a failed companion is a warning: the episode is downloaded")
        #expect(download.phase == .ended)
        #expect(download.companionCompleted(0, arrived) == [], "an ended episode takes no companion events")
    }

    @Test func aBatchStoppedWhileCompanionsRunDropsThemSilentlyAndTheEpisodeStaysDownloaded() {
        var (download, result) = placed()
        var retries = scheduler()
        _ = download.fetchCompanions([transcript], batchStop: nil)
        let cancelled = FailedTransfer(id: TransferID(episode: 1, companion: 0).raw, kind: .cancelled, url: transcript.url)
        #expect(download.companionFailed(0, cancelled, batchStop: .interrupted, scheduler: &retries) == [
            .companion(.drop(transcript, warning: nil)), .settle(result),
        ])
    }

    @Test func anEpisodePlacedAfterTheBatchStoppedFetchesNoCompanion() {
        var (download, result) = placed()
        #expect(download.fetchCompanions([transcript, artwork], batchStop: .storageFull("disk full")) == [.settle(result)])
        #expect(download.phase == .ended)
    }

    @Test func anEpisodeFoundInPlaceFetchesWhatItLacksAndIsSettledAsSkipped() {
        var download = EpisodeDownload.fixture(item, url: Self.url)
        let skipped = DownloadResult(item: item, state: .skipped, path: "/tmp/x/Show/one.mp3", bytes: 0, error: "already downloaded")
        download.foundInPlace(skipped)
        #expect(download.fetchCompanions([artwork], batchStop: nil) == [.companion(firstRequest(artwork, 0))])
        let done = CompletedTransfer(id: TransferID(episode: 1, companion: 0).raw, bytes: 300, received: 300, effectiveURL: artwork.url)
        #expect(download.companionCompleted(0, done) == [.companion(.save(artwork, done)), .settle(skipped)])
    }

    @Test func companionEventsOutOfTurnAreIgnoredAndACompletingEpisodeIsPastStopping() {
        var running = EpisodeDownload.fixture(item, url: Self.url)
        _ = running.begin()
        let done = CompletedTransfer(id: TransferID(episode: 1, companion: 0).raw, bytes: 300, received: 300, effectiveURL: artwork.url)
        #expect(running.companionCompleted(0, done) == [], "a transferring episode has no companions")
        #expect(running.fetchCompanions([artwork], batchStop: nil) == [], "only an episode in place fetches companions")
        #expect(running.phase == .queued)
        var (download, _) = placed()
        _ = download.fetchCompanions([artwork], batchStop: nil)
        #expect(download.companionCompleted(5, done) == [], "no such companion")
        #expect(download.fetchCompanions([transcript], batchStop: nil) == [], "its companions are fetched once")
        #expect(download.stopAsked(.cancel) == [])
        guard case .completing(_, let companions) = download.phase else { Issue.record("not completing: \(download.phase)"); return }
        #expect(companions.map(\.file) == [artwork])
    }
}
