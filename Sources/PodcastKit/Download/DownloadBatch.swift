import FoundationEssentials
import Glibc

/// Downloads a set of episodes: claims each in the progress buffer (so no episode is fetched
/// twice, even by two processes), continues partial files from their resume data, runs the
/// transfers on a `TransferEngine`, retries by `RetryPolicy`, checkpoints progress, and moves each
/// finished file to its final name.
///
/// Blocks the calling thread until every episode has ended; checkpoints, finishing files and
/// database writes happen on that thread, never on the engine's.
public final class DownloadBatch {
    /// The progress buffer the batch records its episodes in.
    public let store: StateStore
    let episodesDirectory: String
    let settings: TransferEngine.Settings
    private let policy: RetryPolicy
    private let queue = EventQueue<BatchEvent>()
    /// Folders made in this batch, so a thousand episodes of one podcast make it once.
    var madeFolders: Set<String> = []
    /// Whether each podcast folder existed when the batch first looked (see `folderExisted`).
    var foldersFound: [String: Bool] = [:]
    /// False when the Episodes directory is on a file system in memory, where syncs are no-ops.
    private(set) var syncsToDisk = true

    var engine: TransferEngine?
    /// The batch's episodes; request ids are indexes into it.
    var items: [DownloadItem] = []
    /// Items from this index on are not claimed yet (see `claimNextGroup`).
    var nextToClaim = 0
    /// How many items the next claim takes.
    var claimGroupSize = firstClaims
    /// Claimed episodes not yet started, oldest first, from `firstWaiting` on (see `activate`).
    var waiting: [Int] = []
    var firstWaiting = 0
    /// What the progress buffer held for a waiting episode before it was claimed, if anything.
    var previousRecords: [Int: DownloadRecord] = [:]
    /// The episodes being fetched, by request id.
    var active: [Int: ActiveDownload] = [:]
    /// Active episodes whose next attempt waits for a retry's back-off.
    var delayed: Set<Int> = []
    var results: [Int: DownloadResult] = [:]
    private(set) var stop: BatchOutcome.Stop?
    /// Hosts that asked (Retry-After) not to be asked again before an instant.
    private var hostsWaiting: [String: ContinuousClock.Instant] = [:]
    var lastProgressWrite = ContinuousClock.now
    /// Set once the user was told that progress records cannot be written (see `checkpoint`).
    var progressUnrecorded = false
    /// Pause and cancel requests from other processes (`podcast pause`, `podcast cancel`).
    var stopRequests = StopRequests()

    /// A batch writing to `episodesDirectory` and recording progress in `store`.
    public init(store: StateStore, episodesDirectory: String, settings: TransferEngine.Settings, policy: RetryPolicy = RetryPolicy()) {
        self.store = store
        self.episodesDirectory = episodesDirectory
        partialDirectory = episodesDirectory + "/.partial"
        self.settings = settings
        self.policy = policy
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

    /// Downloads `items`, telling `report` what happens; returns one result per item, in order.
    public func run(_ items: [DownloadItem], report: (DownloadUpdate) -> Void) throws -> BatchOutcome {
        try FileIO.makeDirectory(partialDirectory, mode: 0o755)
        syncsToDisk = !FileIO.isInMemory(partialDirectory)
        let queue = self.queue
        let engine = try TransferEngine(settings: settings) { queue.post(contentsOf: $0.lazy.map(BatchEvent.transfer)) }
        self.engine = engine
        defer { engine.shutdown() }

        self.items = items

        // Completed transfers are finished in groups (one transaction each), not one by one.
        var completed: [CompletedTransfer] = []
        var finishBy: ContinuousClock.Instant?
        while true {
            if let stop {
                // Every episode asked for is claimed, so the ones that never started are paused too.
                while hasUnclaimed { claimNextGroup(report: report) }
                pauseWaiting(because: stop.reason, report: report)
            } else {
                if hasUnclaimed { claimNextGroup(report: report) }
                activate(inFlight: active.count - completed.count - delayed.count, report: report)
            }
            if active.isEmpty && !hasUnclaimed { break }
            // While items wait to be claimed, events are taken without waiting for them.
            for event in queue.drain(until: hasUnclaimed ? .now : finishBy) {
                switch event {
                case .interrupt:
                    halt(.interrupted)
                case .transfer(.started(let id)):
                    delayed.remove(id)
                    guard let download = active[id] else { continue }
                    download.record.state = .downloading
                    report(.started(download.item))
                case .transfer(.responded(let response)):
                    guard let download = active[response.id] else { continue }
                    download.accept(response)
                    if let why = response.startedOver {
                        report(.warning(download.item, "started over: \(why)"))
                    }
                    // A large file's validator is recorded at once, so a kill -9 in its first
                    // seconds does not cost what arrived; small files wait for their end.
                    if response.startedOver != nil || (response.total ?? 0) >= Self.recordAtOnceBytes {
                        download.record.state = .downloading
                        download.record.dataBoot = ProcessOwner.currentBoot
                        download.lastCheckpoint = .now
                        if let problem = save(download.record) {
                            report(.warning(download.item, "could not record its progress: \(problem)"))
                        }
                    }
                case .transfer(.progress(let snapshot)):
                    checkpoint(snapshot, report: report)
                    pollStopRequests(report: report)
                    report(.progress(snapshot.compactMap { progress in active[progress.id].map { ($0.item, progress) } }))
                case .transfer(.filled(let id, let bytes)):
                    if let download = active[id] { startWriteback(download, upTo: bytes) }
                case .transfer(.completed(let done)):
                    if completed.isEmpty { finishBy = .now + Self.finishingDelay }
                    completed.append(done)
                case .transfer(.failed(let failure)):
                    handle(failure, report: report)
                }
            }
            // Nothing else running, a full group, or the first of them waited long enough.
            if let due = finishBy, completed.count == active.count || completed.count >= Self.finishingGroup || .now >= due {
                finish(completed, report: report)
                completed.removeAll(keepingCapacity: true)
                finishBy = nil
            }
        }
        return BatchOutcome(results: items.indices.compactMap { results[$0] }, stop: stop)
    }

    /// A completed transfer waits at most this long to be finished with others: finishing many
    /// in one transaction costs little more than finishing one, and 2,000 small files finished one
    /// by one spent most of their time committing.
    static let finishingDelay = Duration.milliseconds(50)
    /// Completed transfers are finished at once when this many wait.
    static let finishingGroup = 64

    /// Starts (or restarts) an attempt: from `resume`, or from the start; not before `after`.
    func start(_ download: ActiveDownload, resume: ResumePoint?, after wait: Duration?) {
        guard let engine else { return }
        download.response = nil
        download.attemptResumed = resume != nil
        let notBefore = wait.map { ContinuousClock.now + $0 }
        if notBefore == nil { delayed.remove(download.id) } else { delayed.insert(download.id) }
        engine.start(TransferRequest(
            id: download.id, url: download.record.url, partialPath: download.partialPath, resume: resume,
            notBefore: notBefore, expectedLength: download.item.entry.enclosureLength, writesBack: syncsToDisk,
            maxSize: settings.maxEpisodeSize))
    }

    /// Decides what follows a failed attempt.
    private func handle(_ failure: FailedTransfer, report: (DownloadUpdate) -> Void) {
        guard let download = active[failure.id] else { return }
        download.received += failure.received
        if honourStopRequest(download, failure, report: report) { return }
        if let stop {
            pause(download, bytes: failure.bytes, because: stop.reason, report: report)
            return
        }
        switch policy.decide(after: failure, resumed: download.attemptResumed, history: &download.history) {
        case .resumeNow, .askOriginalURL:
            start(download, resume: download.resumePoint(at: failure.bytes), after: nil)
        case .resume(let wait):
            let until = waitUntil(download, wait: wait, failure: failure)
            report(.retrying(download.item, until: until, reason: failure.reason))
            start(download, resume: download.resumePoint(at: failure.bytes), after: until - .now)
        case .startOver(nil):
            report(.warning(download.item, failure.reason))
            start(download, resume: nil, after: nil)
        case .startOver(let wait?):
            let until = waitUntil(download, wait: wait, failure: failure)
            report(.retrying(download.item, until: until, reason: failure.reason))
            start(download, resume: nil, after: until - .now)
        case .fail(let final):
            fail(download, because: failure.reason, bytes: failure.bytes, final: final, report: report)
        case .giveUp(let attempts):
            let reason = "gave up after \(attempts) attempts in a row that gained nothing: the server keeps \(failure.pattern); last: \(failure.reason)"
            fail(download, because: reason, bytes: failure.bytes, final: false, report: report)
        case .stopAll:
            guard case .local(let error) = failure.kind else { return }
            let reason = "cannot write \(error.path ?? download.partialPath): \(error.reason)"
            halt(.storageFull(reason))
            pause(download, bytes: failure.bytes, because: reason, report: report)
        }
    }

    /// The instant a retry of `download` may start, `wait` from now or later when its host asked
    /// (Retry-After) not to be asked before then.
    private func waitUntil(_ download: ActiveDownload, wait: Duration, failure: FailedTransfer) -> ContinuousClock.Instant {
        let host = Self.host(of: download.record.url)
        let until = ContinuousClock.now + wait
        if case .http(let error) = failure.kind, error.retryAfter != nil {
            hostsWaiting[host] = until
        }
        return max(until, hostsWaiting[host] ?? until)
    }

    /// Stops every transfer; they come back as cancelled failures and are paused.
    private func halt(_ reason: BatchOutcome.Stop) {
        guard stop == nil else { return }
        stop = reason
        engine?.shutdown()
    }

    /// Ends `download` as failed, its partial file holding `bytes`; the file stays for
    /// `podcast resume` unless no retry can help (`final`).
    func fail(_ download: ActiveDownload, because reason: String, bytes: Int64, final: Bool, report: (DownloadUpdate) -> Void) {
        var record = download.record
        record.state = .failed
        record.error = reason
        record.finalError = final
        record.failures = download.history.failuresWithoutProgress
        if final {
            unlink(download.partialPath)
            record.bytes = 0
            record.durableBytes = 0
        } else {
            sync(download, bytes: bytes, into: &record)
        }
        let error = save(record).map { "\(reason) (and the failure could not be recorded: \($0))" } ?? reason
        settle(download, DownloadResult(item: download.item, state: .failed, path: nil, bytes: download.received, error: error), report: report)
    }

    /// Ends `download` as paused, with its resume data made durable.
    func pause(_ download: ActiveDownload, bytes: Int64, because reason: String, report: (DownloadUpdate) -> Void) {
        var record = download.record
        record.state = .paused
        record.error = reason
        sync(download, bytes: bytes, into: &record)
        let error = save(record).map { "\(reason), but the pause could not be recorded (\($0)); podcast resume will start it over" } ?? reason
        settle(download, DownloadResult(item: download.item, state: .paused, path: nil, bytes: download.received, error: error), report: report)
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

    /// Pauses the claimed episodes that never started, when the batch stops; an earlier run's
    /// partial file stays theirs, with its resume data.
    private func pauseWaiting(because reason: String, report: (DownloadUpdate) -> Void) {
        let indexes = takeAllWaiting()
        guard !indexes.isEmpty else { return }
        // One transaction for them all; each record is still written whole, or not at all.
        var paused: [DownloadItem] = []
        do {
            try store.transaction {
                for index in indexes {
                    guard let download = activeDownload(index, report: report) else { continue }
                    pause(download, bytes: download.plannedResume?.offset ?? 0, because: reason, report: report)
                    paused.append(download.item)
                }
            }
        } catch {
            for item in paused {
                report(.warning(item, "the pause could not be recorded (\(error)); podcast resume will start it over"))
            }
        }
    }

    /// Makes the first `bytes` of the partial file durable and says so in `record`.
    func sync(_ download: ActiveDownload, bytes: Int64, into record: inout DownloadRecord) {
        record.bytes = bytes
        guard bytes > 0, !syncsToDisk || (try? FileIO.syncData(download.partialPath)) != nil else { return }
        record.durableBytes = bytes
        record.dataBoot = ProcessOwner.currentBoot
    }

    /// Records `result` as the episode's end.
    func settle(_ download: ActiveDownload, _ result: DownloadResult, report: (DownloadUpdate) -> Void) {
        active[download.id] = nil
        delayed.remove(download.id)
        results[download.id] = result
        report(.finished(result))
    }

    /// The `host[:port]` part of `url`, which Retry-After waits are kept by.
    static func host(of url: String) -> String {
        let afterScheme = url.split(separator: "://", maxSplits: 1).last ?? Substring(url)
        return String(afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
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
    case interrupt
}
