import PodcastPlatform

/// One episode a batch is fetching: its record as this process knows it, where its bytes go, the
/// current attempt and its history of failures.
///
/// A value with one owner, the batch, which changes it only through the events in
/// `EpisodeDownload+StateMachine.swift` and carries out the actions they return (transfers,
/// store writes, syncs, endings); nothing else mutates it.
struct EpisodeDownload {
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

    /// The current attempt's answer, once the server gave one.
    private(set) var response: TransferResponse?
    private(set) var history: RetryPolicy.History
    /// Whether the current attempt asked for a range.
    private(set) var attemptResumed = false
    /// Bytes received over every attempt in this run.
    private(set) var received: Int64 = 0
    /// When the record was last checkpointed (nil: not since the current answer arrived).
    private(set) var lastCheckpoint: ContinuousClock.Instant?
    /// Whether the file was already fetched again because it did not match the feed's digest.
    private(set) var refetchedForIntegrity = false
    /// The bytes of the partial file last handed to the disk's writeback.
    private(set) var writeback: Range<Int64> = 0..<0
    /// A pause or cancel asked while its transfer runs, carried out when the transfer ends.
    private(set) var stopRequest: StopRequest?

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
        record.state = .downloading
        return [.report(.started(item))]
    }

    /// The server's answer was accepted (`ResponseCheck`); its body is being written.
    mutating func responded(_ answer: TransferResponse, now: ContinuousClock.Instant) -> [Action] {
        response = answer
        lastCheckpoint = nil
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
            lastCheckpoint = now
            actions.append(.record)
        }
        return actions
    }

    /// The transfer reached `progress`: how much of it to write, and how.
    mutating func progressed(_ progress: TransferProgress, now: ContinuousClock.Instant) -> Checkpoint {
        record.speed = progress.speed
        guard response != nil else { return .none }
        guard let checkpointed = lastCheckpoint else {
            record.bytes = progress.bytes
            record.resume.dataBoot = ProcessOwner.currentBoot
            record.state = .downloading
            lastCheckpoint = now
            return .record
        }
        if progress.bytes - record.resume.durableBytes >= Self.checkpointBytes || now - checkpointed >= Self.checkpointInterval {
            record.state = .downloading
            record.resume.dataBoot = ProcessOwner.currentBoot
            lastCheckpoint = now
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
        if bytes < writeback.upperBound { writeback = 0..<0 }  // started over
        writeback = writeback.upperBound..<bytes
        return writeback
    }

    /// `podcast pause` or `podcast cancel` asked to stop it while its transfer runs: the transfer
    /// is stopped, and the request carried out when it comes back.
    mutating func stopAsked(_ request: StopRequest) -> [Action] {
        stopRequest = request
        return [.cancelTransfer]
    }

    /// A stop asked before its transfer started: carried out at once.
    func stopAskedBeforeStart(_ request: StopRequest) -> [Action] {
        switch request {
        case .pause: [.end(.paused(because: "paused", bytes: plannedResume?.offset ?? 0))]
        case .cancel: [.end(.cancelled)]
        }
    }

    /// The batch stopped (Ctrl-C, a full disk) before its transfer started.
    func batchStoppedBeforeStart(_ stop: BatchOutcome.Stop) -> [Action] {
        [.end(.paused(because: stop.reason, bytes: plannedResume?.offset ?? 0))]
    }

    /// The attempt failed: a stop asked of it or of the batch is carried out; otherwise the retry
    /// scheduler decides between another attempt (now or later, continuing or from byte 0) and
    /// an end.
    mutating func transferFailed(_ failure: FailedTransfer, batchStop: BatchOutcome.Stop?, scheduler: inout RetryScheduler) -> [Action] {
        received += failure.received
        if let request = stopRequest {
            stopRequest = nil
            // A transfer cancelled while it waited reports 0 bytes; the file still holds what it had.
            let bytes = max(failure.bytes, record.bytes)
            return [.end(request == .pause ? .paused(because: "paused", bytes: bytes) : .cancelled)]
        }
        if let batchStop {
            return [.end(.paused(because: batchStop.reason, bytes: failure.bytes))]
        }
        switch scheduler.next(after: failure, resumed: attemptResumed, history: &history, url: record.url) {
        case .attempt(let fromPartial, nil):
            let warning: [Action] = fromPartial ? [] : [.report(.warning(item, failure.reason))]
            return warning + attempt(resume: fromPartial ? resumePoint(at: failure.bytes) : nil, notBefore: nil)
        case .attempt(let fromPartial, let until?):
            return [.report(.retrying(item, until: until, reason: failure.retryReason))]
                + attempt(resume: fromPartial ? resumePoint(at: failure.bytes) : nil, notBefore: until)
        case .fail(let final):
            return [.end(.failed(because: failure.reason, bytes: failure.bytes, final: final))]
        case .giveUp(let attempts, let spent):
            return [.end(.failed(because: failure.givingUp(attempts: attempts, spent: spent), bytes: failure.bytes, final: false))]
        case .stopAll:
            let reason = if case .local(let error) = failure.kind { "cannot write \(error.path ?? partialPath): \(error.reason)" } else { failure.reason }
            return [.stopBatch(.storageFull(reason)), .end(.paused(because: reason, bytes: failure.bytes))]
        }
    }

    /// The transfer delivered the whole file; it waits to be placed with others.
    mutating func transferCompleted(_ done: CompletedTransfer) {
        received += done.received
    }

    /// The completed file does not match the feed's `podcast:integrity` digest (`check` names
    /// it): fetched once more from byte 0 (a corrupted transfer or a changed file), and on the
    /// second mismatch the episode fails: the publisher's file or digest is wrong.
    mutating func digestMismatched(_ check: String, batchStop: BatchOutcome.Stop?) -> [Action] {
        guard !refetchedForIntegrity else {
            let reason = "the file does not match the \(check) digest the feed publishes (podcast:integrity), "
                + "twice; the publisher's file or digest is wrong"
            return [.end(.failed(because: reason, bytes: 0, final: true))]
        }
        refetchedForIntegrity = true
        let warning = Action.report(.warning(item, "the file does not match the feed's \(check) digest: fetching it again"))
        if let batchStop { return [warning, .discardPartial, .end(.paused(because: batchStop.reason, bytes: 0))] }
        return [warning, .discardPartial] + attempt(resume: nil, notBefore: nil)
    }

    /// The file was moved to `path` and is recorded there, as `file` says it is on disk.
    mutating func placed(at path: String, by done: CompletedTransfer, file: FinishedFile) {
        record.completed(by: done, at: path, file: file)
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
        response = nil
        attemptResumed = resume != nil
        return [.transfer(resume: resume, notBefore: notBefore)]
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
