/// One companion file (a transcript, chapters, an image, a cover) to fetch for an episode whose
/// media file is in place: what it is, where it comes from and where it goes. `CompanionFiling`
/// decides which an episode gets; a `CompanionFetch` of the episode's fetches each.
struct CompanionFile: Equatable {
    /// What it is.
    let kind: LibraryFile.Kind
    /// Where it comes from.
    let url: String
    /// What its bytes must be, and its extension (`CompanionCheck`).
    let content: CompanionCheck.Content
    /// Where its bytes are written until it is complete (a `ProcessTemporary` name in its folder).
    let partialPath: String
    /// The folder it goes into.
    let folder: String
    /// Its name before the extension: the episode's media file's (or `cover`).
    let stem: String

    /// The largest companion file taken: transcripts, chapters and artwork are far smaller. Fixed:
    /// `max-episode-size` (`--max-size`) is the limit of media files, not of these.
    static let maxBytes: Int64 = 64 * 1024 * 1024

    /// Its path once saved with `fileExtension` (what `CompanionCheck` accepted it as).
    func destination(fileExtension: String) -> String {
        folder + "/" + stem + "." + fileExtension
    }

    /// The warning for it when it is not saved because of `reason`: the episode stays downloaded.
    func notSaved(_ reason: String) -> String {
        "its \(kind.label) was not saved (\(reason)); the episode is kept without it"
    }
}

/// The fetch of one companion file, a state machine owned by its episode's (`EpisodeDownload`,
/// in its `completing` phase): through the batch's engine like the episodes (its concurrency, its
/// per-host limit), retried by the same scheduler, continued from its partial file after a dropped
/// connection. Never media: an HTML transcript is a transcript, and it is never counted as an
/// episode. Its failure is a warning; the episode stays downloaded.
///
///     fetching ──completed──▶ ended (saved or refused by the batch)
///        ▲   │ failed
///        │   ├──────────────▶ ended (dropped: a warning, none once the batch stopped)
///        └── waitingToRetry
struct CompanionFetch: Equatable {
    /// Where it stands.
    enum Phase: Equatable {
        /// Its transfer is with the engine, running or waiting for a slot.
        case fetching
        /// Its next attempt waits for a retry's back-off, until `until` (in the engine's hands).
        case waitingToRetry(until: ContinuousClock.Instant)
        /// It ended: handed over to be saved, or dropped.
        case ended
    }

    /// What the batch does for it.
    enum Action: Equatable {
        /// Hand `request` to the engine.
        case transfer(TransferRequest)
        /// Check what arrived (`CompanionCheck`), then place and record it; a refusal or a
        /// failure is a warning.
        case save(CompanionFile, CompletedTransfer)
        /// Remove its partial file, and tell `warning` when there is one.
        case drop(CompanionFile, warning: String?)
    }

    /// Its engine request's id: its episode's and its number among the episode's companions.
    let id: TransferID
    /// What it fetches.
    let file: CompanionFile
    /// Where it stands.
    private(set) var phase = Phase.fetching
    /// What the server said about the bytes written so far, to continue them.
    private(set) var resume = ResumeRecord()
    /// Failures so far, for the retry scheduler.
    private(set) var history = RetryPolicy.History(bestOffset: 0)
    /// Whether the current attempt continues the partial file.
    private(set) var resumed = false

    init(id: TransferID, file: CompanionFile) {
        self.id = id
        self.file = file
    }

    /// The first attempt.
    mutating func begin() -> [Action] {
        attempt(resume: nil, notBefore: nil)
    }

    /// The engine began a transfer that waited for its back-off.
    mutating func started() {
        if case .waitingToRetry = phase { phase = .fetching }
    }

    /// The server's answer was accepted: its validators are kept, to continue it.
    mutating func responded(_ answer: TransferResponse) {
        resume.etag = answer.encoded ? nil : answer.etag
        resume.lastModified = answer.encoded ? nil : answer.lastModified
        resume.total = answer.total
    }

    /// The whole file arrived: it is saved, once checked.
    mutating func completed(_ done: CompletedTransfer) -> [Action] {
        guard phase != .ended else { return [] }
        phase = .ended
        return [.save(file, done)]
    }

    /// Its attempt failed: another attempt when the scheduler allows one (from the partial file
    /// only when a validator vouches for it), else it is dropped with a warning, the episode kept
    /// without it. A stopped batch (`batchStopped`) drops it silently, the scheduler not asked:
    /// the next download of the episode fetches what it lacks.
    mutating func failed(_ failure: FailedTransfer, batchStopped: Bool, scheduler: inout RetryScheduler) -> [Action] {
        guard phase != .ended else { return [] }
        let next: RetryScheduler.Next = batchStopped
            ? .fail(final: false) : scheduler.next(after: failure, resumed: resumed, history: &history, url: file.url)
        switch next {
        case .attempt(let fromPartial, let notBefore):
            return attempt(resume: fromPartial ? resume.point(at: failure.bytes) : nil, notBefore: notBefore)
        case .fail, .giveUp, .stopAll:
            phase = .ended
            return [.drop(file, warning: batchStopped ? nil : file.notSaved(failure.reason))]
        }
    }

    /// An attempt continuing `resume` (nil: from byte 0), not before `notBefore`.
    private mutating func attempt(resume point: ResumePoint?, notBefore: ContinuousClock.Instant?) -> [Action] {
        resumed = point != nil
        phase = notBefore.map { .waitingToRetry(until: $0) } ?? .fetching
        var request = TransferRequest(
            id: id.raw, url: file.url, partialPath: file.partialPath, expectsMedia: false, resume: point, notBefore: notBefore,
            writesBack: false, maxSize: CompanionFile.maxBytes)
        request.sizeCap = .companionFile
        return [.transfer(request)]
    }
}
