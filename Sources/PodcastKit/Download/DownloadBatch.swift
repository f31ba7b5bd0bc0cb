import FoundationEssentials
import Glibc
import PodcastPlatform

/// Downloads a set of episodes: claims each in the progress buffer (so no episode is fetched
/// twice, even by two processes), runs one `EpisodeDownload` state machine per episode (which
/// runs one `CompanionFetch` per companion file once its media file is in place), carries out
/// what the machines ask (transfers on a `TransferEngine`, file preparations on a `FilePreparer`,
/// checkpoints, store writes, companion files saved, endings) and feeds what those did back to
/// them as events, each to the episode whose transfer it is (`TransferID`). Admission is in
/// `DownloadBatch+Admission.swift`, placing in `DownloadBatch+Finishing.swift`.
///
/// Blocks the calling thread until every episode has ended; checkpoints, placing files and
/// database writes happen on that thread, never on the engine's.
public final class DownloadBatch {
    /// The progress buffer the batch records its episodes in.
    public let store: StateStore
    let settings: TransferEngine.Settings
    /// True when episodes already downloaded are fetched again (`download --force`).
    let force: Bool
    private let queue = EventQueue<BatchEvent>()
    /// Where finished files go.
    var placement: EpisodePlacement
    /// How each episode's files are made, and the playlists to write.
    var filings: EpisodeFilings
    /// Which companion files episodes in place get, and how fetched ones are saved.
    var companions: CompanionFiling
    /// Every episode asked for, those not active yet, and the results.
    var roster = BatchRoster()
    /// The episodes being fetched (their media file, then their companion files), by index, which
    /// is their media transfer's request id: one state machine each.
    var active: [Int: EpisodeDownload] = [:]
    /// When failed attempts are tried again (episodes and companions alike).
    var scheduler: RetryScheduler
    private(set) var stop: BatchOutcome.Stop?
    var chores = BatchChores()
    private var engine: TransferEngine?
    private var preparer: FilePreparer?
    /// What shares the engine and hands the batch episodes as it finds them, while it runs.
    private var feeder: (any BatchFeeder)?

    /// A batch writing to `episodesDirectory` and recording progress in `store`; `force` fetches
    /// episodes already downloaded again.
    public init(
        store: StateStore, episodesDirectory: String, settings: TransferEngine.Settings, policy: RetryPolicy = RetryPolicy(),
        library: LibrarySettings = LibrarySettings(), force: Bool = false
    ) {
        self.store = store
        placement = EpisodePlacement(episodesDirectory: episodesDirectory)
        self.settings = settings
        filings = EpisodeFilings(library: library, store: store)
        companions = CompanionFiling(store: store)
        self.force = force
        scheduler = RetryScheduler(policy: policy)
    }

    /// A batch with `settings`, recording progress in `store`; `force` fetches episodes already
    /// downloaded again.
    public convenience init(store: StateStore, settings: DownloadSettings, force: Bool = false) {
        self.init(
            store: store, episodesDirectory: settings.episodesDirectory, settings: settings.engine, policy: settings.retry,
            library: settings.library, force: force)
    }

    /// Where unfinished data lives: hidden, inside the Episodes directory (same file system, so
    /// finishing is a rename), never under a final name.
    public var partialDirectory: String { placement.partialDirectory }

    /// A call that stops the batch, from any thread: running and waiting episodes are
    /// checkpointed and paused, and `run` returns with `stop` set to `.interrupted`.
    public var interrupter: @Sendable () -> Void {
        let queue = self.queue
        return { queue.post(.interrupt) }
    }

    /// Downloads `items`, telling `report` what happens; returns one result per item, in order.
    /// `refill`, when given, is asked for more episodes while the batch runs (at most once a
    /// second, and once more before it ends): the background worker hands the batch episodes
    /// queued after it started, so they take the free slots instead of waiting for it to end.
    public func run(
        _ items: [DownloadItem], refill: (() -> [DownloadItem])? = nil, report: (DownloadUpdate) -> Void
    ) throws -> BatchOutcome {
        try run(items, refill: refill, feeder: nil, report: report)
    }

    /// Downloads `items` as `run(_:refill:report:)` does, beside a `feeder` that shares the
    /// batch's engine: its transfers run beside the episodes' (on the same connections), its
    /// events go to it, and the episodes it finds join the batch as soon as it hands them over.
    /// The batch ends once the feeder has finished too.
    func run(
        _ items: [DownloadItem], refill: (() -> [DownloadItem])?, feeder: (any BatchFeeder)?, report: (DownloadUpdate) -> Void
    ) throws -> BatchOutcome {
        try placement.preparePartialDirectory(store: store, report: report)
        let queue = self.queue
        let engine = try TransferEngine(settings: settings) { queue.post(contentsOf: $0.lazy.map(BatchEvent.transfer)) }
        let preparer = FilePreparer { queue.post(.prepared(id: $0, $1)) }
        (self.engine, self.preparer, self.feeder) = (engine, preparer, feeder)
        defer {
            engine.shutdown()
            preparer.shutdown()
            (self.engine, self.preparer, self.feeder) = (nil, nil, nil)
        }
        roster.add(items)
        feeder?.start(on: engine)
        chores = BatchChores()
        while true {
            takeNewEpisodes(refill: refill)
            admitEpisodes(report: report)
            if active.isEmpty && !roster.hasUnclaimed && feeder?.isFinished ?? true { break }
            // While items wait to be claimed, events are taken without waiting for them.
            let wakeBy = roster.hasUnclaimed ? .now : chores.wakeBy(refilling: refill != nil && stop == nil)
            for event in queue.drain(until: wakeBy) { handle(event, report: report) }
            finishReadyFiles(report: report)
            filings.reportHooks(waiting: false, report: report)
        }
        filings.writePlaylists(store: store) { report(.notice($0)) }
        filings.reportHooks(waiting: true, report: report)
        return BatchOutcome(results: roster.outcomes, stop: stop)
    }

    /// Adds the episodes the refill (at its turn) and the feeder found since the last look.
    private func takeNewEpisodes(refill: (() -> [DownloadItem])?) {
        guard stop == nil else { return }
        if let refill, !roster.hasUnclaimed, chores.refillDue(idle: active.isEmpty) { roster.add(refill()) }
        if let feeder { roster.add(feeder.takeEpisodes()) }
    }

    /// Claims the next group of items and starts what fits; once the batch stopped, claims every
    /// item instead, so the ones that never started are paused too.
    private func admitEpisodes(report: (DownloadUpdate) -> Void) {
        if let stop {
            while roster.hasUnclaimed { claimNextGroup(report: report) }
            pauseWaiting(because: stop, report: report)
        } else {
            if roster.hasUnclaimed { claimNextGroup(report: report) }
            activate(inFlight: active.values.count { $0.phase.holdsTransferSlot }, report: report)
        }
    }

    // MARK: Events

    /// Hands `event` to whom it concerns: the feeder, or the machine of the episode whose
    /// transfer (media or companion file) it is.
    private func handle(_ event: BatchEvent, report: (DownloadUpdate) -> Void) {
        switch event {
        case .interrupt:
            halt(.interrupted)
        case .prepared(let id, let outcome):
            perform(active[id]?.prepared(outcome, batchStop: stop), for: id, report: report)
            if case .finishing? = active[id]?.phase { chores.fileReady() }
        case .transfer(.progress(let all)):
            if let feeder, case let feeds = all.filter({ FeedRound.owns($0.id) }), !feeds.isEmpty { feeder.handle(.progress(feeds)) }
            pollStopRequests(report: report)
            // Companion files' progress is not shown.
            let snapshot = all.filter { !FeedRound.owns($0.id) && TransferID($0.id).companion == nil }
            guard !snapshot.isEmpty else { return }
            checkpoint(snapshot, report: report)
            report(.progress(snapshot.compactMap { progress in active[progress.id].map { ($0.item, progress) } }))
        case .transfer(let transferEvent):
            guard let raw = transferEvent.requestID else { return }
            if FeedRound.owns(raw) {
                feeder?.handle(transferEvent)
            } else if case let id = TransferID(raw), let number = id.companion {
                companionEvent(transferEvent, number, of: id.episode, report: report)
            } else {
                episodeEvent(transferEvent, id: raw, report: report)
            }
        }
    }

    /// What the engine says of episode `id`'s transfer, handed to its machine.
    private func episodeEvent(_ event: TransferEvent, id: Int, report: (DownloadUpdate) -> Void) {
        switch event {
        case .started:
            perform(active[id]?.transferStarted(), for: id, report: report)
        case .responded(let response):
            // Taken before the machine is: it reads the other episodes.
            let room = room(for: id)
            perform(active[id]?.responded(response, now: .now, room: room), for: id, report: report)
        case .filled(_, let bytes):
            if placement.syncsToDisk { startWriteback(id, upTo: bytes) }
            let room = room(for: id)
            perform(active[id]?.grew(to: bytes, room: room, step: Transfer.filledPiece), for: id, report: report)
        case .completed(let done):
            perform(active[id]?.transferCompleted(done), for: id, report: report)
        case .failed(let failure):
            perform(active[id]?.transferFailed(failure, batchStop: stop, scheduler: &scheduler), for: id, report: report)
        case .progress:
            break
        }
    }

    /// What the engine says of companion `number` of episode `id`, handed to the episode, which
    /// hands it to that companion's machine.
    private func companionEvent(_ event: TransferEvent, _ number: Int, of id: Int, report: (DownloadUpdate) -> Void) {
        switch event {
        case .started:
            active[id]?.companionStarted(number)
        case .responded(let response):
            active[id]?.companionResponded(number, response)
        case .completed(let done):
            perform(active[id]?.companionCompleted(number, done), for: id, report: report)
        case .failed(let failure):
            perform(active[id]?.companionFailed(number, failure, batchStop: stop, scheduler: &scheduler), for: id, report: report)
        case .filled, .progress:
            break
        }
    }

    // MARK: Carrying out what the episodes ask

    /// Carries out `actions`, which episode `id`'s state machine returned (nil: it is not active).
    func perform(_ actions: [EpisodeDownload.Action]?, for id: Int, report: (DownloadUpdate) -> Void) {
        for action in actions ?? [] {
            switch action {
            case .transfer(let resume, let notBefore):
                startTransfer(id, resume: resume, notBefore: notBefore)
            case .cancelTransfer:
                engine?.cancel(id)
            case .goAhead:
                engine?.goAhead(id)
            case .prepare(let job):
                preparer?.prepare(job)
            case .report(let update):
                report(update)
            case .record:
                guard let download = active[id], let problem = save(download.record) else { continue }
                report(.warning(download.item, "could not record its progress: \(problem)"))
            case .checkpoint(let bytes):
                guard let path = active[id]?.partialPath else { continue }
                active[id]?.synced(bytes, durable: syncPartial(path, bytes: bytes))
                perform([.record], for: id, report: report)
            case .discardPartial:
                // Ownership: the episode's own partial file in `.partial`.
                if let path = active[id]?.partialPath { unlink(path) }
            case .end(let ending):
                end(id, ending, report: report)
            case .settle(let result):
                settle(id, result, report: report)
            case .companion(let companion):
                perform(companion, for: id, report: report)
            case .stopBatch(let reason):
                halt(reason)
            }
        }
    }

    /// Carries out what a companion fetch of episode `id` asks: its transfers, its file saved
    /// (`CompanionFiling.save`) or dropped, a warning told on the episode's line.
    private func perform(_ action: CompanionFetch.Action, for id: Int, report: (DownloadUpdate) -> Void) {
        guard let item = active[id]?.item else { return }
        switch action {
        case .transfer(let request):
            engine?.start(request)
        case .save(let file, let done):
            if let problem = companions.save(file, done, of: item) { report(.warning(item, problem)) }
        case .drop(let file, let warning):
            // Ownership: the companion's own temporary file (`ProcessTemporary`).
            unlink(file.partialPath)
            if let warning { report(.warning(item, warning)) }
        }
    }

    /// Hands the episode's request to the engine: continuing `resume` (nil: from the start), not
    /// before `notBefore`.
    private func startTransfer(_ id: Int, resume: ResumePoint?, notBefore: ContinuousClock.Instant?) {
        guard let engine, let download = active[id] else { return }
        var request = TransferRequest(
            id: id, url: download.record.url, partialPath: download.partialPath, resume: resume,
            notBefore: notBefore, expectedLength: download.item.entry.enclosureLength, writesBack: placement.syncsToDisk,
            maxSize: settings.maxEpisodeSize)
        request.goAheadAbove = FreeSpaceCheck.unaskedBytes(in: room(for: id))
        engine.start(request)
    }

    /// Ends episode `id` short of a download: its partial file kept (made durable first) or
    /// removed, its record written or (cancelled) deleted, and its result settled. A store write
    /// that fails is said in the result, never dropped.
    private func end(_ id: Int, _ ending: EpisodeDownload.Ending, report: (DownloadUpdate) -> Void) {
        guard let download = active[id] else { return }
        var note: String?
        switch ending {
        case .cancelled:
            // Ownership: the episode's own partial file in `.partial`.
            unlink(download.partialPath)
            do {
                try store.downloads.delete(download.record.key)
            } catch {
                // A record left behind has no partial file any more: a later resume starts it over.
                note = "but its record could not be removed: \(error); podcast resume would fetch it again"
            }
        case .failed(_, _, final: true):
            // Ownership: the episode's own partial file in `.partial`.
            unlink(download.partialPath)
            note = save(download.closingRecord(ending, durable: false)).map { "not recorded: \($0)" }
        case .paused(_, let bytes), .failed(_, let bytes, final: false):
            let durable = syncPartial(download.partialPath, bytes: bytes)
            note = save(download.closingRecord(ending, durable: durable)).map { "not recorded: \($0); podcast resume will start it over" }
        }
        settle(id, download.result(ending, note: note), report: report)
    }

    /// Stops every transfer; they come back as cancelled failures and are paused.
    private func halt(_ reason: BatchOutcome.Stop) {
        guard stop == nil else { return }
        stop = reason
        feeder?.stop()
        // Every transfer comes back as a failure: episodes are paused, companion fetches dropped
        // (their machines start no other once `stop` is set), left to the next download.
        engine?.shutdown()
    }

    /// Records `result` as episode `id`'s end.
    private func settle(_ id: Int, _ result: DownloadResult, report: (DownloadUpdate) -> Void) {
        active[id] = nil
        placement.release(id)
        roster.settle(id, result)
        report(.finished(result))
        filings.handOn(result)
    }

    // MARK: Progress

    /// Takes a progress snapshot: each episode's machine says what is due (`Checkpoint`); data is
    /// `fdatasync`ed before the record that vouches for it, so a kill -9 at any instant leaves a
    /// true record, and once a second the others' progress is written for `status`.
    private func checkpoint(_ snapshot: [TransferProgress], report: (DownloadUpdate) -> Void) {
        let now = ContinuousClock.now
        var due: [DownloadRecord] = []
        var others: [(key: EpisodeKey, bytes: Int64, speed: Double)] = []
        for progress in snapshot {
            switch active[progress.id]?.progressed(progress, now: now) {
            case .none?, nil:
                continue
            case .progress?:
                if let key = active[progress.id]?.record.key { others.append((key, progress.bytes, progress.speed)) }
            case .record?:
                if let record = active[progress.id]?.record { due.append(record) }
            case .sync(let bytes)?:
                guard let path = active[progress.id]?.partialPath else { continue }
                active[progress.id]?.synced(bytes, durable: syncPartial(path, bytes: bytes))
                if let record = active[progress.id]?.record { due.append(record) }
            }
        }
        do {
            try store.downloads.save(due)
            if chores.progressWriteDue(now: now) { try store.downloads.recordProgress(others) }
        } catch {
            // Not fatal: the records stay behind their files, which is safe (a record never
            // vouches for more than the file holds), and the next checkpoint tries again.
            guard let item = snapshot.lazy.compactMap({ self.active[$0.id]?.item }).first, chores.tellProgressUnrecorded() else { return }
            report(.warning(item, "could not record download progress (\(error)); if podcast stops now, podcast resume may fetch some bytes again"))
        }
    }

    /// Starts writing the bytes of episode `id` received since the last call to disk, without
    /// waiting, so the disk writes while the network reads and the checkpoints' and the final
    /// `fdatasync` wait for little (on a disk, the end of a large download would otherwise wait
    /// for all of it).
    private func startWriteback(_ id: Int, upTo bytes: Int64) {
        guard let range = active[id]?.filled(upTo: bytes), let path = active[id]?.partialPath else { return }
        do {
            try FileIO.startWriteback(path, of: range)
        } catch {
            // Only a hint to the kernel: the data is in the page cache either way, and the sync
            // before the record is what makes it durable.
        }
    }

    /// Makes the first `bytes` of the partial file at `path` durable: true when they are on disk
    /// (or there is no disk, on a file system in memory).
    func syncPartial(_ path: String, bytes: Int64) -> Bool {
        guard bytes > 0 else { return false }
        guard placement.syncsToDisk else { return true }
        do {
            try FileIO.syncData(path)
            return true
        } catch {
            return false
        }
    }

    /// Writes `record` to the store; nil when it was written, else what went wrong, for the
    /// caller to tell the user (a store write is never dropped in silence).
    func save(_ record: DownloadRecord) -> String? {
        do {
            try store.downloads.save(record)
            return nil
        } catch {
            return "\(error)"
        }
    }
}

/// How a batch ended.
public struct BatchOutcome: Sendable {
    /// Why the batch stopped before every episode ended on its own.
    public enum Stop: Sendable, Equatable {
        /// Ctrl-C or SIGTERM.
        case interrupted
        /// The disk is full or read-only: the reason, one line.
        case storageFull(String)

        var reason: String {
            switch self {
            case .interrupted: "interrupted"
            case .storageFull(let why): why
            }
        }
    }

    /// One result per item, in order.
    public var results: [DownloadResult]
    /// Set when the batch was stopped; the unfinished episodes are paused.
    public var stop: Stop?
}

/// What the batch thread waits for.
enum BatchEvent: Sendable {
    case transfer(TransferEvent)
    /// The `FilePreparer` checked, tagged and hashed a completed file.
    case prepared(id: Int, FilePreparation.Outcome)
    case interrupt
}
