import FoundationEssentials
import Glibc
import PodcastPlatform

/// Downloads a set of episodes: claims each in the progress buffer (so no episode is fetched
/// twice, even by two processes), runs one `EpisodeDownload` state machine per episode, carries
/// out what the machines ask (transfers on a `TransferEngine`, checkpoints, store writes, endings)
/// and moves each finished file to its final name.
///
/// Blocks the calling thread until every episode has ended; checkpoints, finishing files and
/// database writes happen on that thread, never on the engine's.
public final class DownloadBatch {
    /// The progress buffer the batch records its episodes in.
    public let store: StateStore
    let settings: TransferEngine.Settings
    /// How finished files are named and what goes with them, for episodes without their own.
    let library: LibrarySettings
    /// True when episodes already downloaded are fetched again (`download --force`).
    let force: Bool
    /// What feeds say about the episodes beyond their listings, read when a setting needs it.
    let details: FeedDetails
    private let queue = EventQueue<BatchEvent>()
    /// Where finished files go.
    var placement: EpisodePlacement
    /// False when the Episodes directory is on a file system in memory, where syncs are no-ops.
    private(set) var syncsToDisk = true

    var engine: TransferEngine?
    /// Takes the SHA-256 of each file as its pieces arrive, beside the engine.
    var digester: FileDigester?
    /// The batch's episodes; request ids are indexes into it.
    var items: [DownloadItem] = []
    /// The items not active yet: unclaimed, or claimed and waiting to start.
    var claims = ClaimQueue(count: 0)
    /// The episodes being fetched, by request id: one state machine each.
    var active: [Int: EpisodeDownload] = [:]
    /// Active episodes whose next attempt waits for a retry's back-off.
    private var delayed: Set<Int> = []
    private var results: [Int: DownloadResult] = [:]
    private(set) var stop: BatchOutcome.Stop?
    /// When failed attempts are tried again.
    var scheduler: RetryScheduler
    /// Companion files being fetched, by request id (from `firstCompanionID` on).
    var companions: [Int: CompanionFetch] = [:]
    /// Companion transfers started so far, for their ids.
    var companionsStarted = 0
    /// Podcast folders whose cover this batch has seen to.
    var coverFolders: Set<String> = []
    /// The podcasts whose playlist is written when the batch ends: by feed, the folder and title.
    var playlists: [String: (folder: String, podcastTitle: String, portable: Bool, subscription: Int?)] = [:]
    var lastProgressWrite = ContinuousClock.now
    /// Set once the user was told that progress records cannot be written (see `checkpoint`).
    var progressUnrecorded = false
    /// When the batch last looked for pause and cancel requests from other processes.
    var lastStopRequestPoll = ContinuousClock.now
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
        partialDirectory = episodesDirectory + "/.partial"
        self.settings = settings
        self.library = library
        self.force = force
        details = FeedDetails(store: store)
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
    public let partialDirectory: String

    /// A call that stops the batch, from any thread: running and waiting episodes are
    /// checkpointed and paused, and `run` returns with `stop` set to `.interrupted`.
    public var interrupter: @Sendable () -> Void {
        let queue = self.queue
        return { queue.post(.interrupt) }
    }

    /// How often a running batch asks its `refill` for more episodes.
    static let refillInterval = Duration.seconds(1)

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
        do {
            try FileIO.makeDirectory(partialDirectory, mode: 0o755)
        } catch {
            throw EpisodesDirectoryError(directory: placement.episodesDirectory, error: error)
        }
        syncsToDisk = !FileIO.isInMemory(partialDirectory)
        sweepOrphanedPartials(report: report)
        let queue = self.queue
        let engine = try TransferEngine(settings: settings) { queue.post(contentsOf: $0.lazy.map(BatchEvent.transfer)) }
        self.engine = engine
        let digester = FileDigester { queue.post(.digested(id: $0, file: $1)) }
        self.digester = digester
        defer {
            engine.shutdown()
            digester.shutdown()
        }

        self.items = items
        claims = ClaimQueue(count: items.count)
        self.feeder = feeder
        defer { self.feeder = nil }
        feeder?.start(on: engine)

        // Completed transfers are finished in groups (one transaction each), not one by one,
        // once their digests are taken (`FileDigester`).
        var completed: [(done: CompletedTransfer, file: DigestedFile)] = []
        var digesting: [Int: CompletedTransfer] = [:]
        var finishBy: ContinuousClock.Instant?
        var lastRefill = ContinuousClock.now
        while true {
            if let refill, stop == nil, !hasUnclaimed, active.isEmpty || .now - lastRefill >= Self.refillInterval {
                lastRefill = .now
                let more = refill()
                self.items += more
                claims.extend(by: more.count)
            }
            if let feeder, stop == nil {
                let found = feeder.takeEpisodes()
                self.items += found
                claims.extend(by: found.count)
            }
            if let stop {
                // Every episode asked for is claimed, so the ones that never started are paused too.
                while hasUnclaimed { claimNextGroup(report: report) }
                pauseWaiting(because: stop, report: report)
            } else {
                if hasUnclaimed { claimNextGroup(report: report) }
                activate(inFlight: active.count - completed.count - digesting.count - delayed.count, report: report)
            }
            if active.isEmpty && !hasUnclaimed && companions.isEmpty && feeder?.isFinished ?? true { break }
            // While items wait to be claimed, events are taken without waiting for them; with a
            // refill, no longer than until its next turn.
            let refillBy = refill.map { _ in lastRefill + Self.refillInterval }
            let wakeBy = hasUnclaimed ? .now : [finishBy, refillBy].compactMap { $0 }.min()
            for event in queue.drain(until: wakeBy) {
                if case .transfer(let transferEvent) = event, let feeder, let feederEvent = Self.feederPart(of: transferEvent) {
                    feeder.handle(feederEvent)
                    guard case .progress(let all) = transferEvent else { continue }
                    // The episodes' part of a progress snapshot goes on below.
                    if all.allSatisfy({ FeedRound.owns($0.id) }) { continue }
                }
                if case .transfer(let transferEvent) = event, let id = transferEvent.requestID, id >= Self.firstCompanionID {
                    companionEvent(transferEvent, report: report)
                    continue
                }
                switch event {
                case .interrupt:
                    halt(.interrupted)
                case .transfer(.started(let id)):
                    delayed.remove(id)
                    perform(active[id]?.transferStarted(), for: id, report: report)
                case .transfer(.responded(let response)):
                    digester.rewinding(response.id, to: response.offset)
                    perform(active[response.id]?.responded(response, now: .now), for: response.id, report: report)
                case .transfer(.progress(let all)):
                    let snapshot = all.filter { !FeedRound.owns($0.id) }
                    checkpoint(snapshot, report: report)
                    pollStopRequests(report: report)
                    report(.progress(snapshot.compactMap { progress in active[progress.id].map { ($0.item, progress) } }))
                case .transfer(.filled(let id, let bytes)):
                    if let download = active[id] { digester.filled(id, path: download.partialPath, bytes: bytes, tagging: download.tagsForDigester) }
                    if syncsToDisk { startWriteback(id, upTo: bytes) }
                case .transfer(.completed(let done)):
                    guard let download = active[done.id] else { continue }
                    active[done.id]?.transferCompleted(done)
                    digesting[done.id] = done
                    digester.complete(done.id, path: download.partialPath, bytes: done.bytes, tagging: download.tagsForDigester)
                case .digested(let id, let file):
                    guard let done = digesting.removeValue(forKey: id) else { continue }
                    if completed.isEmpty { finishBy = .now + Self.finishingDelay }
                    completed.append((done, file))
                case .transfer(.failed(let failure)):
                    let actions = active[failure.id]?.transferFailed(failure, batchStop: stop, scheduler: &scheduler)
                    perform(actions, for: failure.id, report: report)
                }
            }
            // Nothing else running, a full group, or the first of them waited long enough.
            if let due = finishBy, completed.count + digesting.count == active.count || completed.count >= Self.finishingGroup || .now >= due {
                finish(completed, report: report)
                completed.removeAll(keepingCapacity: true)
                finishBy = nil
            }
        }
        writePlaylists(report: report)
        return BatchOutcome(results: self.items.indices.compactMap { results[$0] }, stop: stop)
    }

    /// A completed transfer waits at most this long to be finished with others: finishing many
    /// in one transaction costs little more than finishing one, and 2,000 small files finished one
    /// by one spent most of their time committing.
    static let finishingDelay = Duration.milliseconds(50)
    /// Completed transfers are finished at once when this many wait.
    static let finishingGroup = 64

    /// Removes the partial files of the batch's folder that no record names (`OrphanedPartials`).
    private func sweepOrphanedPartials(report: (DownloadUpdate) -> Void) {
        do {
            let removed = try OrphanedPartials.sweep(partialDirectory, store: store)
            if removed.files > 0 {
                report(.notice("removed \(removed.files) partial file\(removed.files == 1 ? "" : "s") no download can continue "
                    + "(\(ByteCount.text(removed.bytes))) from \(partialDirectory)"))
            }
        } catch {
            report(.notice("could not look for partial files no download can continue (\(error)); they stay in \(partialDirectory)"))
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
            case .stopBatch(let reason):
                halt(reason)
            }
        }
    }

    /// Hands the episode's request to the engine: continuing `resume` (nil: from the start), not
    /// before `notBefore`.
    private func startTransfer(_ id: Int, resume: ResumePoint?, notBefore: ContinuousClock.Instant?) {
        guard let engine, let download = active[id] else { return }
        if notBefore == nil { delayed.remove(id) } else { delayed.insert(id) }
        let request = TransferRequest(
            id: id, url: download.record.url, partialPath: download.partialPath, resume: resume,
            notBefore: notBefore, expectedLength: download.item.entry.enclosureLength, writesBack: syncsToDisk,
            maxSize: settings.maxEpisodeSize)
        engine.start(request)
    }

    /// Ends episode `id` short of a download: its partial file kept (made durable first) or
    /// removed, its record written or (cancelled) deleted, and its result settled. A store write
    /// that fails is said in the result, never dropped.
    private func end(_ id: Int, _ ending: EpisodeDownload.Ending, report: (DownloadUpdate) -> Void) {
        guard let download = active[id] else { return }
        digester?.forget(id)
        var note: String?
        switch ending {
        case .cancelled:
            // Ownership: the episode's own partial file in `.partial`.
            unlink(download.partialPath)
            do {
                try store.deleteDownload(download.record.key)
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

    /// Makes the first `bytes` of the partial file at `path` durable: true when they are on disk
    /// (or there is no disk, on a file system in memory).
    func syncPartial(_ path: String, bytes: Int64) -> Bool {
        guard bytes > 0 else { return false }
        guard syncsToDisk else { return true }
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
            try store.saveDownload(record)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Stops every transfer; they come back as cancelled failures and are paused.
    private func halt(_ reason: BatchOutcome.Stop) {
        guard stop == nil else { return }
        stop = reason
        feeder?.stop()
        engine?.shutdown()
    }

    /// The part of `event` that is about the feeder's transfers, if any.
    private static func feederPart(of event: TransferEvent) -> TransferEvent? {
        if case .progress(let all) = event {
            let feeds = all.filter { FeedRound.owns($0.id) }
            return feeds.isEmpty ? nil : .progress(feeds)
        }
        return event.requestID.map(FeedRound.owns) == true ? event : nil
    }

    /// Pauses the claimed episodes that never started, when the batch stops; an earlier run's
    /// partial file stays theirs, with its resume data.
    private func pauseWaiting(because stop: BatchOutcome.Stop, report: (DownloadUpdate) -> Void) {
        let indexes = claims.takeAllWaiting()
        guard !indexes.isEmpty else { return }
        // One transaction for them all; each record is still written whole, or not at all.
        var paused: [DownloadItem] = []
        do {
            try store.transaction {
                for index in indexes where admit(index, report: report) {
                    paused.append(items[index])
                    perform(active[index]?.batchStoppedBeforeStart(stop), for: index, report: report)
                }
            }
        } catch {
            for item in paused {
                report(.warning(item, "the pause could not be recorded (\(error)); podcast resume will start it over"))
            }
        }
    }

    /// Records `result` as episode `id`'s end.
    func settle(_ id: Int, _ result: DownloadResult, report: (DownloadUpdate) -> Void) {
        active[id] = nil
        placement.release(id)
        delayed.remove(id)
        results[id] = result
        report(.finished(result))
    }

    /// Records the end of an episode that never became active.
    func settleEarly(
        _ index: Int, _ item: DownloadItem, _ state: DownloadResult.State, path: String? = nil, error: String,
        report: (DownloadUpdate) -> Void
    ) {
        let result = DownloadResult(item: item, state: state, path: path, bytes: 0, error: error)
        results[index] = result
        report(.finished(result))
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
    /// The `FileDigester` took a completed file's SHA-256 (after tagging it, when asked).
    case digested(id: Int, file: DigestedFile)
    case interrupt
}
