import Dispatch
import Synchronization

/// Makes the episodes of finished items (`ItemDraft.episode(resolver:)`: decoding their texts,
/// dates, durations and show notes), keeping document order.
///
/// A document's first items are made at once, on the reading thread. Once a document proves long,
/// the rest go in batches to a thread of its own, so that libxml2 and the builder on one core
/// and the making of episodes on another run side by side. At most `batchesInFlight` batches are
/// out at once, so memory stays bounded however far the reader runs ahead. Made batches come
/// back to be freed where they were allocated: frees from the other thread contend for the
/// allocator's lock on every one.
final class EpisodeFinisher {
    /// Items made on the reading thread before a thread is started, and the size of each batch.
    static let batchSize = 64
    /// The most batches handed on and not yet back.
    static let batchesInFlight = 8

    /// The document's address: each thread makes its own resolver for it, so that the two never
    /// share (and contend for) one reference count.
    private let documentURL: String
    private let resolver: URLResolver
    private var episodes: [Episode] = []
    private var pending: [(FeedBuilder.ItemDraft, URLResolver?)] = []
    private var worker: Worker?
    /// True when no thread could be started: every episode is then made on the reading thread.
    private var workerUnavailable = false
    private var finished = false

    /// The thread that makes episodes, and the way to it and back.
    private struct Worker {
        let channel: Channel
        let thread: BackgroundThread<[Episode]>
    }

    private final class Channel: Sendable {
        let batches = EventQueue<Batch>()
        /// Batches made, on their way back to be freed.
        let made = Mutex<[Batch]>([])
        /// Counts the batches that may still be handed on.
        let freeSlots = DispatchSemaphore(value: EpisodeFinisher.batchesInFlight)

        /// Frees the batches that came back, on the calling thread.
        func dropMade() {
            let batches = made.withLock { made in
                defer { made.removeAll(keepingCapacity: true) }
                return made
            }
            _ = consume batches
        }
    }

    /// Drafts handed to the worker thread and back. Whichever thread holds a batch is the only
    /// one to touch its drafts, so ownership moves with it; nil ends the work.
    private struct Batch: @unchecked Sendable {
        let drafts: [(FeedBuilder.ItemDraft, URLResolver?)]?
    }

    /// A finisher for the items of the document at `documentURL`.
    init(documentURL: String) {
        self.documentURL = documentURL
        resolver = URLResolver(documentURL: documentURL)
    }

    deinit {
        // A builder dropped before `finish` (a document that is not a feed) must not leave its thread waiting.
        if let worker, !finished { _ = try? stop(worker) }
    }

    /// Takes a finished item whose relative URLs resolve against `base` (an `xml:base` in force),
    /// or against the document's address when nil.
    func add(_ draft: FeedBuilder.ItemDraft, base: URLResolver?) {
        precondition(!finished, "EpisodeFinisher: add after finish")
        if worker == nil && (episodes.count < Self.batchSize || workerUnavailable) {
            episodes.append(draft.episode(resolver: base ?? resolver))
            return
        }
        pending.append((draft, base))
        if pending.count == Self.batchSize { handOn() }
    }

    /// Every episode, in the order their items were added. Later calls return the same.
    func finish() -> [Episode] {
        guard !finished else { return episodes }
        if let worker {
            handOn()
            // `stop` only throws what the work throws, and the work throws nothing. The first
            // episodes go in front of the worker's, which are moved, not copied.
            var made = (try? stop(worker)) ?? []
            made.insert(contentsOf: episodes, at: 0)
            episodes = made
        } else {
            episodes += pending.map { $0.0.episode(resolver: $0.1 ?? resolver) }
        }
        pending = []
        finished = true
        return episodes
    }

    private func handOn() {
        guard !pending.isEmpty else { return }
        if worker == nil { worker = Self.startWorker(documentURL: documentURL) }
        guard let worker else {
            workerUnavailable = true
            episodes += pending.map { $0.0.episode(resolver: $0.1 ?? resolver) }
            pending = []
            return
        }
        worker.channel.freeSlots.wait()
        worker.channel.dropMade()
        worker.channel.batches.post(Batch(drafts: pending))
        pending = []
    }

    private func stop(_ worker: Worker) throws -> [Episode] {
        worker.channel.batches.post(Batch(drafts: Optional.none))
        defer { worker.channel.dropMade() }
        return try worker.thread.wait()
    }

    private static func startWorker(documentURL: String) -> Worker? {
        let channel = Channel()
        let thread = BackgroundThread { () -> [Episode] in
            let resolver = URLResolver(documentURL: documentURL)
            var episodes: [Episode] = []
            while true {
                for batch in channel.batches.drain() {
                    guard let drafts = batch.drafts else { return episodes }
                    for (draft, base) in drafts {
                        episodes.append(base.map(draft.episode) ?? draft.episode(resolver: resolver))
                    }
                    channel.made.withLock { $0.append(batch) }
                    channel.freeSlots.signal()
                }
            }
        }
        return thread.map { Worker(channel: channel, thread: $0) }
    }
}
