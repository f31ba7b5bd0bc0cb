import PodcastPlatform
import PodcastText

/// One episode a batch is fetching, from its first attempt to its end: its record as this process
/// knows it, where its bytes go, the phase it is in, the current attempt and its history of
/// failures.
///
/// A state machine with one owner, the batch, which changes it only through the events below and
/// carries out the actions they return (transfers, file preparations, store writes, syncs,
/// endings); nothing else mutates it. Once its media file is in place it fetches its companion
/// files, each a `CompanionFetch` machine of its own that only it holds and drives, and it is
/// settled (its result told) when they have ended.
///
///     queued ──started──▶ transferring ──completed──▶ preparing ──prepared──▶ finishing ──placed──▶ completing
///        ▲                    │  failed                  │ mismatched (once)          (companions) │ all ended
///        └── waitingToRetry ◀─┴──────────────────────────┘                                          ▼
///                                                           any phase ──ending──▶ ended ◀─────────────┘
struct EpisodeDownload {
    /// Where the episode stands.
    enum Phase: Equatable {
        /// Its transfer was handed to the engine, which has not started it yet (connection limits).
        case queued
        /// Its transfer runs.
        case transferring
        /// Its next attempt waits for a retry's back-off, until `until`.
        case waitingToRetry(until: ContinuousClock.Instant)
        /// Its file is complete and being checked, tagged and hashed (`FilePreparation`).
        case preparing(CompletedTransfer)
        /// Its file is ready (`file`) and waits to be placed with others.
        case finishing(CompletedTransfer, FinishedFile)
        /// Its media file is in place (or was already): `result` is told once its companion
        /// files, fetched now, have ended, whatever became of them.
        case completing(DownloadResult, companions: [CompanionFetch])
        /// It ended: settled with its result, or short of its file (`Ending`).
        case ended

        /// True while its transfer holds a place among the batch's running and queued ones.
        var holdsTransferSlot: Bool {
            switch self {
            case .queued, .transferring: true
            case .waitingToRetry, .preparing, .finishing, .completing, .ended: false
            }
        }
    }

    /// The engine request id: the item's index in the batch.
    let id: Int
    let item: DownloadItem
    /// The record, kept current in memory and written at checkpoints and at the end.
    private(set) var record: DownloadRecord
    let partialPath: String
    /// Where its files go and what goes with them.
    let filing: EpisodeFiling
    /// The folder its media file goes into.
    let folder: String
    /// Where the finished file goes unless another episode's file is there.
    let preferredPath: String
    /// Where the first attempt continues the partial file left by an earlier run, if it does.
    let plannedResume: ResumePoint?

    /// Where it stands.
    private(set) var phase = Phase.queued
    /// The attempt under way.
    private(set) var currentAttempt = Attempt(resumed: false, writebackFrom: 0)
    private(set) var history: RetryPolicy.History
    /// Bytes received over every attempt in this run.
    private(set) var received: Int64 = 0
    /// Whether the file was already fetched again because it did not match the feed's digest.
    private(set) var refetchedForIntegrity = false
    /// Why its running transfer was stopped (a pause or cancel asked, no room for the server's
    /// answer), carried out when the transfer ends.
    private(set) var pendingStop: PendingStop?

    /// An episode claimed with `record`, continuing `previous` (an earlier run's record) when its
    /// partial file can be trusted: `resumePlan` is what `ResumePlan` made of it.
    init(
        id: Int, item: DownloadItem, record: DownloadRecord, partialPath: String, filing: EpisodeFiling,
        previous: DownloadRecord?, resumePlan: ResumePoint?
    ) {
        self.id = id
        self.item = item
        self.record = record
        self.partialPath = partialPath
        self.filing = filing
        let name = filing.name()
        folder = filing.folder(of: name)
        preferredPath = filing.path(of: name)
        plannedResume = resumePlan
        // What the partial file already holds is no progress of this run's attempts.
        history = RetryPolicy.History(bestOffset: resumePlan?.offset ?? 0)
        if let previous {
            self.record.adoptResumeData(of: previous)
            history.failuresWithoutProgress = previous.failures
        }
        if resumePlan == nil {
            self.record.resume.durableBytes = 0
            self.record.bytes = 0
        }
    }

    /// Its whole file's size, when known: the server's from an answer (this run's or an earlier
    /// one's), else the feed's.
    var knownSize: Int64? {
        record.resume.total ?? item.entry.enclosureLength
    }

    /// The bytes its file still needs, when its size is known: the room it takes on its file
    /// system while it is in flight (`FreeSpaceCheck.Room.reserved`).
    var stillNeeded: Int64? {
        knownSize.map { max(0, $0 - record.bytes) }
    }

    /// The folder its partial file is in: which file system's room it takes.
    var partialFolder: Substring {
        partialPath[..<(partialPath.lastIndex(of: "/") ?? partialPath.endIndex)]
    }

    /// Where a new attempt continues: the partial file's `bytes`, checked by the validators the
    /// server gave for them; nil (start over) when there is none.
    func resumePoint(at bytes: Int64) -> ResumePoint? {
        record.resume.point(at: bytes)
    }
}

// MARK: - The state machine
//
// What happens to one episode, step by step: one `mutating func` per event, each returning the
// actions the batch carries out (start a transfer, write the record, end the episode…). The
// decisions live here, free of I/O, so every branch is tested in milliseconds; the batch only
// carries them out and reports what its side effects did back as events. In the same file as the
// type, so that nothing else can change its state.
extension EpisodeDownload {
    /// A large download's resume data is made durable this often, by bytes or by time, whichever
    /// comes first; a small one only at its end (design notes: fsync is what makes aria2 slow).
    static let checkpointBytes: Int64 = 16 * 1024 * 1024
    static let checkpointInterval = Duration.seconds(10)
    /// Answers for files at least this large have their validator recorded as soon as they arrive.
    static let recordAtOnceBytes: Int64 = 1024 * 1024

    // MARK: Events

    /// The first attempt: continuing the earlier run's partial file when it can be trusted.
    mutating func begin() -> [Action] {
        attempt(resume: plannedResume, notBefore: nil)
    }

    /// The engine began the transfer.
    mutating func transferStarted() -> [Action] {
        phase = .transferring
        record.state = .downloading
        return [.report(.started(item))]
    }

    /// The server's answer was accepted (`ResponseCheck`); its body is being written, or waits
    /// for the go-ahead (`TransferResponse.awaitsGoAhead`). The server's size, which a feed
    /// leaves out or gets wrong (`length="0"`), is checked against `room`, its file system's as
    /// the batch sees it now (`FreeSpaceCheck`): an answer that does not fit stops its transfer,
    /// before its body is written when it waits, and the episode is paused with the reason when
    /// the transfer comes back, its partial file and resume data kept for `podcast resume`.
    mutating func responded(_ answer: TransferResponse, now: ContinuousClock.Instant, room: FreeSpaceCheck.Room) -> [Action] {
        currentAttempt.response = answer
        currentAttempt.lastCheckpoint = nil
        // No validator for an encoded body: its partial file is never continued, only restarted.
        record.resume.etag = answer.encoded ? nil : answer.etag
        record.resume.lastModified = answer.encoded ? nil : answer.lastModified
        record.resume.total = answer.total
        record.effectiveURL = answer.effectiveURL
        var actions: [Action] = []
        if let why = answer.startedOver {
            // The partial file was truncated: nothing in it is durable any more.
            record.resume.durableBytes = 0
            record.bytes = 0
            actions.append(.report(.warning(item, "started over: \(why)")))
        }
        // A large file's validator is recorded at once, so a kill -9 in its first seconds does not
        // cost what arrived; small files wait for their end.
        if answer.startedOver != nil || (answer.total ?? 0) >= Self.recordAtOnceBytes {
            record.state = .downloading
            record.resume.dataBoot = ProcessOwner.currentBoot
            currentAttempt.lastCheckpoint = now
            actions.append(.record)
        }
        // A transfer already being stopped neither goes on nor needs another reason.
        guard pendingStop == nil else { return actions }
        if let why = FreeSpaceCheck.problem(size: answer.total, have: answer.offset, in: room) {
            pendingStop = .noRoom(why)
            return actions + [.cancelTransfer]
        }
        return actions + (answer.awaitsGoAhead ? [.goAhead] : [])
    }

    /// Its partial file holds `bytes` (`TransferEvent.filled`, each `step` written). An answer
    /// that gave no size (chunked, or compressed) could not be checked when it came
    /// (`responded`), so it is checked as it grows, its transfer waiting (a compressed one does
    /// not wait: `Transfer.growsUnchecked`): it goes on while another `step` fits above
    /// `min-free-space` in `room`; else it stops and the episode is paused with the reason, its
    /// partial file kept for `podcast resume`.
    mutating func grew(to bytes: Int64, room: FreeSpaceCheck.Room, step: Int64) -> [Action] {
        guard phase == .transferring, pendingStop == nil, let answer = currentAttempt.response, answer.total == nil else { return [] }
        guard let why = FreeSpaceCheck.problem(growingFrom: bytes, by: step, in: room) else { return [.goAhead] }
        pendingStop = .noRoom(why)
        return [.cancelTransfer]
    }

    /// The transfer reached `progress`: how much of it to write, and how.
    mutating func progressed(_ progress: TransferProgress, now: ContinuousClock.Instant) -> Checkpoint {
        record.speed = progress.speed
        guard currentAttempt.response != nil else { return .none }
        guard let checkpointed = currentAttempt.lastCheckpoint else {
            record.bytes = progress.bytes
            record.resume.dataBoot = ProcessOwner.currentBoot
            record.state = .downloading
            currentAttempt.lastCheckpoint = now
            return .record
        }
        if progress.bytes - record.resume.durableBytes >= Self.checkpointBytes || now - checkpointed >= Self.checkpointInterval {
            record.state = .downloading
            record.resume.dataBoot = ProcessOwner.currentBoot
            currentAttempt.lastCheckpoint = now
            return .sync(bytes: progress.bytes)
        }
        record.bytes = progress.bytes
        return .progress
    }

    /// The batch tried to make the first `bytes` of the partial file durable: the record says so
    /// only when it succeeded (`durable`), so it never vouches for more than the disk holds.
    mutating func synced(_ bytes: Int64, durable: Bool) {
        record.apply(bytes: bytes, durable: durable)
    }

    /// The partial file holds `bytes`, another piece since the last report: returns what to hand
    /// to the disk's writeback now.
    mutating func filled(upTo bytes: Int64) -> Range<Int64> {
        if bytes < currentAttempt.writeback.upperBound { currentAttempt.writeback = 0..<0 }  // started over
        currentAttempt.writeback = currentAttempt.writeback.upperBound..<bytes
        return currentAttempt.writeback
    }

    /// `podcast pause` or `podcast cancel` asked to stop it while its transfer runs or waits: the
    /// transfer is stopped, and the request carried out when it comes back. A complete file is
    /// past stopping: it is placed, unless it fails the feed's digest, when the request is carried
    /// out instead of fetching it again.
    mutating func stopAsked(_ request: StopRequest) -> [Action] {
        switch phase {
        case .queued, .transferring, .waitingToRetry:
            pendingStop = .asked(request)
            return [.cancelTransfer]
        case .preparing:
            pendingStop = .asked(request)
            return []
        case .finishing, .completing, .ended:
            return []
        }
    }

    /// A stop asked before its transfer started: carried out at once.
    mutating func stopAskedBeforeStart(_ request: StopRequest) -> [Action] {
        switch request {
        case .pause: end(.paused(because: "paused", bytes: plannedResume?.offset ?? 0))
        case .cancel: end(.cancelled)
        }
    }

    /// Its file would not fit in the room its file system has (`FreeSpaceCheck`): it waits,
    /// paused, before its transfer starts.
    mutating func noRoom(_ why: String) -> [Action] {
        end(.paused(because: why, bytes: plannedResume?.offset ?? 0))
    }

    /// The batch stopped (Ctrl-C, a full disk) before its transfer started.
    mutating func batchStoppedBeforeStart(_ stop: BatchOutcome.Stop) -> [Action] {
        end(.paused(because: stop.reason, bytes: plannedResume?.offset ?? 0))
    }

    /// The attempt failed: a stop asked of it or of the batch is carried out; otherwise the retry
    /// scheduler decides between another attempt (now or later, continuing or from byte 0) and
    /// an end.
    mutating func transferFailed(_ failure: FailedTransfer, batchStop: BatchOutcome.Stop?, scheduler: inout RetryScheduler) -> [Action] {
        received += failure.received
        if let stop = pendingStop {
            pendingStop = nil
            // A transfer cancelled while it waited reports 0 bytes; the file still holds what it had.
            return end(stop.ending(bytes: max(failure.bytes, record.bytes)))
        }
        if let batchStop {
            return end(.paused(because: batchStop.reason, bytes: failure.bytes))
        }
        switch scheduler.next(after: failure, resumed: currentAttempt.resumed, history: &history, url: record.url) {
        case .attempt(let fromPartial, nil):
            let warning: [Action] = fromPartial ? [] : [.report(.warning(item, failure.reason))]
            return warning + attempt(resume: fromPartial ? resumePoint(at: failure.bytes) : nil, notBefore: nil)
        case .attempt(let fromPartial, let until?):
            return [.report(.retrying(item, until: until, reason: failure.retryReason))]
                + attempt(resume: fromPartial ? resumePoint(at: failure.bytes) : nil, notBefore: until)
        case .fail(let final):
            return end(.failed(because: failure.reason, bytes: failure.bytes, final: final))
        case .giveUp(let attempts, let spent):
            return end(.failed(because: failure.givingUp(attempts: attempts, spent: spent), bytes: failure.bytes, final: false))
        case .stopAll:
            let reason = if case .local(let error) = failure.kind { "cannot write \(error.path ?? partialPath): \(error.reason)" } else { failure.reason }
            return [.stopBatch(.storageFull(reason))] + end(.paused(because: reason, bytes: failure.bytes))
        }
    }

    /// The transfer delivered the whole file: it is checked, tagged and hashed off the batch's
    /// thread before it is placed.
    mutating func transferCompleted(_ done: CompletedTransfer) -> [Action] {
        received += done.received
        phase = .preparing(done)
        let tags = filing.settings.tag ? EpisodeTags(self) : nil
        return [.prepare(FilePreparation(id: id, path: partialPath, bytes: done.bytes, integrity: item.entry.integrity?.check, tags: tags))]
    }

    /// The file was prepared (`FilePreparation`): ready, it waits to be placed with others; a
    /// mismatch with the feed's digest fetches it again once (`digestMismatched`); a file that
    /// cannot be read fails the episode, its partial file kept for `podcast resume`.
    mutating func prepared(_ outcome: FilePreparation.Outcome, batchStop: BatchOutcome.Stop?) -> [Action] {
        guard case .preparing(let done) = phase else { return [] }
        switch outcome {
        case .ready(let file, let untagged):
            phase = .finishing(done, file)
            return untagged.map { [.report(.warning(item, "kept untagged: \($0)"))] } ?? []
        case .mismatched(let check):
            return digestMismatched(check, batchStop: batchStop)
        case .failed(let why):
            return end(.failed(because: why, bytes: done.bytes, final: false))
        }
    }

    /// Placing the ready file failed (`why`): the episode fails, its partial file kept for
    /// `podcast resume` (a tagged copy is removed by the batch).
    mutating func placingFailed(_ why: String) -> [Action] {
        guard case .finishing(let done, _) = phase else { return [] }
        return end(.failed(because: why, bytes: done.bytes, final: false))
    }

    /// The completed file does not match the feed's `podcast:integrity` digest (`check` names
    /// it): fetched once more from byte 0 (a corrupted transfer or a changed file), and on the
    /// second mismatch the episode fails: the publisher's file or digest is wrong.
    mutating func digestMismatched(_ check: String, batchStop: BatchOutcome.Stop?) -> [Action] {
        guard !refetchedForIntegrity else {
            let reason = "the file does not match the \(check) digest the feed publishes (podcast:integrity), "
                + "twice; the publisher's file or digest is wrong"
            return end(.failed(because: reason, bytes: 0, final: true))
        }
        refetchedForIntegrity = true
        let warning = Action.report(.warning(item, "the file does not match the feed's \(check) digest: fetching it again"))
        if let stop = pendingStop {
            pendingStop = nil
            return [warning, .discardPartial] + end(stop.ending(bytes: 0))
        }
        if let batchStop { return [warning, .discardPartial] + end(.paused(because: batchStop.reason, bytes: 0)) }
        return [warning, .discardPartial] + attempt(resume: nil, notBefore: nil)
    }

    /// The file was moved to `path`, as `file` says it is on disk: the record that says so is
    /// what the batch writes next. The episode is downloaded; it is settled so once its companion
    /// files have ended (`fetchCompanions`).
    mutating func placed(at path: String, file: FinishedFile) {
        guard case .finishing(let done, _) = phase else { return }
        record.completed(by: done, at: path, file: file)
        let result = DownloadResult(item: item, state: .downloaded, path: path, bytes: received, error: nil, fileSize: record.bytes)
        phase = .completing(result, companions: [])
    }

    /// Its media file was found in place, downloaded before (`result` says how): only its
    /// companion files are fetched (`fetchCompanions`).
    mutating func foundInPlace(_ result: DownloadResult) {
        guard case .queued = phase else { return }
        phase = .completing(result, companions: [])
    }

    // MARK: Companion files

    /// Its media file being in place, the companion files `files` are fetched, each by a machine
    /// of its own (numbered in order, for their transfers' ids); with none, or once the batch
    /// stopped (the next download fetches what is missing), the episode is settled at once.
    mutating func fetchCompanions(_ files: [CompanionFile], batchStop: BatchOutcome.Stop?) -> [Action] {
        guard case .completing(let result, let companions) = phase, companions.isEmpty else { return [] }
        var fetches: [CompanionFetch] = batchStop != nil ? [] : files.enumerated().map { number, file in
            CompanionFetch(id: TransferID(episode: id, companion: number), file: file)
        }
        let actions = fetches.indices.flatMap { fetches[$0].begin() }.map(Action.companion)
        phase = .completing(result, companions: fetches)
        return actions + settledOnceCompanionsEnded()
    }

    /// The engine began the transfer of companion `number`.
    mutating func companionStarted(_ number: Int) {
        _ = companion(number) { fetch in
            fetch.started()
            return []
        }
    }

    /// The server's answer for companion `number` was accepted.
    mutating func companionResponded(_ number: Int, _ answer: TransferResponse) {
        _ = companion(number) { fetch in
            fetch.responded(answer)
            return []
        }
    }

    /// Companion `number` arrived whole: the batch saves it (or refuses it, with a warning).
    mutating func companionCompleted(_ number: Int, _ done: CompletedTransfer) -> [Action] {
        companion(number) { $0.completed(done) }
    }

    /// Companion `number`'s attempt failed: its machine decides between another attempt and
    /// dropping it with a warning (silently once the batch stopped); the episode stays downloaded.
    mutating func companionFailed(
        _ number: Int, _ failure: FailedTransfer, batchStop: BatchOutcome.Stop?, scheduler: inout RetryScheduler
    ) -> [Action] {
        companion(number) { $0.failed(failure, batchStopped: batchStop != nil, scheduler: &scheduler) }
    }

    /// Hands an event to companion `number` (`event` changes its machine and returns its actions),
    /// then settles the episode if that was the last companion to end.
    private mutating func companion(_ number: Int, _ event: (inout CompanionFetch) -> [CompanionFetch.Action]) -> [Action] {
        guard case .completing(let result, var companions) = phase, companions.indices.contains(number) else { return [] }
        let actions = event(&companions[number]).map(Action.companion)
        phase = .completing(result, companions: companions)
        return actions + settledOnceCompanionsEnded()
    }

    /// Settles the completing episode with its result when every companion has ended.
    private mutating func settledOnceCompanionsEnded() -> [Action] {
        guard case .completing(let result, let companions) = phase, companions.allSatisfy({ $0.phase == .ended }) else { return [] }
        phase = .ended
        return [.settle(result)]
    }

    // MARK: Endings

    /// The record that ends the episode as `ending` (not for `.cancelled`, whose record goes),
    /// with `durable` the bytes of the partial file known to be on disk.
    func closingRecord(_ ending: Ending, durable: Bool) -> DownloadRecord {
        var closing = record
        switch ending {
        case .paused(let reason, let bytes):
            closing.state = .paused
            closing.error = reason
            closing.apply(bytes: bytes, durable: durable)
        case .failed(let reason, let bytes, let final):
            closing.state = .failed
            closing.error = reason
            closing.finalError = final
            closing.failures = history.failuresWithoutProgress
            if final {
                closing.bytes = 0
                closing.resume.durableBytes = 0
            } else {
                closing.apply(bytes: bytes, durable: durable)
            }
        case .cancelled:
            break
        }
        return closing
    }

    /// The episode's result for `ending`, with `note` (a store write that failed) added to its reason.
    func result(_ ending: Ending, note: String? = nil) -> DownloadResult {
        let (state, reason): (DownloadResult.State, String) = switch ending {
        case .paused(let why, _): (.paused, why)
        case .failed(let why, _, _): (.failed, why)
        case .cancelled: (.cancelled, "cancelled")
        }
        return DownloadResult(item: item, state: state, path: nil, bytes: received, error: note.map { "\(reason) (\($0))" } ?? reason)
    }

    // MARK: Attempts

    private mutating func attempt(resume: ResumePoint?, notBefore: ContinuousClock.Instant?) -> [Action] {
        currentAttempt = Attempt(resumed: resume != nil, writebackFrom: resume?.offset ?? 0)
        phase = notBefore.map { .waitingToRetry(until: $0) } ?? .queued
        return [.transfer(resume: resume, notBefore: notBefore)]
    }

    private mutating func end(_ ending: Ending) -> [Action] {
        phase = .ended
        return [.end(ending)]
    }
}

extension DownloadRecord {
    /// Says the partial file holds `bytes`, durable on disk when `durable`.
    fileprivate mutating func apply(bytes: Int64, durable: Bool) {
        self.bytes = bytes
        guard durable, bytes > 0 else { return }
        resume.durableBytes = bytes
        resume.dataBoot = ProcessOwner.currentBoot
    }
}

extension EpisodeTags {
    /// The tags of `download`'s episode, with what its feed says when it could be read.
    init(_ download: EpisodeDownload) {
        let item = download.item
        title = item.entry.title
        album = item.podcastTitle
        artist = download.filing.show?.author
        year = item.entry.published.map { Int(UTCDate.day($0).prefix(4)) ?? 0 }
        track = download.filing.episode?.episodeNumber
        comment = download.filing.episode?.description
    }
}

extension EpisodeDownload {
    /// One attempt at the transfer: what it continues, what the server answered, and what of its
    /// bytes were checkpointed and handed to the disk's writeback.
    struct Attempt: Equatable {
        /// Whether it asked for a range (continues the partial file).
        var resumed: Bool
        /// The server's answer, once it gave one.
        var response: TransferResponse?
        /// When the record was last checkpointed (nil: not since the answer arrived).
        var lastCheckpoint: ContinuousClock.Instant?
        /// The bytes of the partial file last handed to the disk's writeback.
        var writeback: Range<Int64>

        /// An attempt writing from `writebackFrom` on (the bytes before it are the partial file's).
        init(resumed: Bool, writebackFrom offset: Int64) {
            self.resumed = resumed
            writeback = offset..<offset
        }
    }
}
