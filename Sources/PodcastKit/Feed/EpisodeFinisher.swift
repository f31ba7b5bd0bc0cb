import PodcastPlatform

/// Makes the episodes of finished items (`ItemDraft.episode(resolver:)`: decoding their texts,
/// dates, durations and show notes), keeping document order.
///
/// A document's first items are made at once, on the calling thread. Once a document proves
/// long, the rest go, in whole batches and by value, to a thread of their own (`BatchQueue`,
/// `BackgroundThread`), which hands its episodes back when the document ends: reading the
/// document and making its episodes then run side by side on two cores. Not Sendable: the thread
/// that reads the document adds and finishes.
final class EpisodeFinisher {
    /// Items made on the calling thread before a thread is started, and the size of each batch.
    static let batchSize = 64
    /// The most batches on their way at once: with 4, the reading thread waited for room now
    /// and then on the 10,000-item multilingual feed (2 ms of 120); 8 cost 1 MB more at most.
    static let batchesInFlight = 8

    /// A finished item and the `xml:base` its relative URLs resolve against, if not the document's.
    typealias Item = (draft: FeedBuilder.ItemDraft, base: URLResolver?)

    private let documentURL: String
    private let resolver: URLResolver
    private var episodes: [Episode] = []
    /// The identities of the episodes made on the calling thread (the thread keeps its own).
    private var identities = IdentityTally()
    private var pending: [Item] = []
    private var worker: (queue: BatchQueue<[Item]>, thread: BackgroundThread<Made, Never>)?
    /// True when no thread could be started: every episode is then made on the calling thread.
    private var workerUnavailable = false
    private var finished = false

    /// A finisher for the items of the document at `documentURL`.
    init(documentURL: String) {
        self.documentURL = documentURL
        resolver = URLResolver(documentURL: documentURL)
    }

    /// Takes a finished item whose relative URLs resolve against `base` (an `xml:base` in force),
    /// or against the document's address when nil.
    func add(_ draft: consuming FeedBuilder.ItemDraft, base: URLResolver?) {
        precondition(!finished, "EpisodeFinisher: add after finish")
        if worker == nil && (episodes.count < Self.batchSize || workerUnavailable) {
            episodes.append(draft.episode(resolver: base ?? resolver))
            identities.note(episodes[episodes.count - 1])
            return
        }
        // Moved in, not copied: a copy retains and releases every text of the draft.
        pending.append((consume draft, base))
        if pending.count == Self.batchSize { handOn() }
    }

    /// Every episode, in the order their items were added. Later calls return the same.
    func finish() -> [Episode] {
        guard !finished else { return episodes }
        finished = true
        handOn()
        if let worker {
            worker.queue.close()
            // The first episodes go in front of the thread's, in the room its array grew to: the
            // other way round, both arrays of a long feed (MBs each) would be held at once.
            var (rest, theirs) = worker.thread.wait()
            rest.insert(contentsOf: episodes, at: 0)
            episodes = rest
            identities.merge(theirs)
            self.worker = nil
        }
        return episodes
    }

    /// Whether two of the episodes `finish` returned share an identity. Known from the episodes
    /// as they were made, on the thread that made them: the reading thread need not hash every
    /// identity again once the document has ended (2 ms for 10,000 items, with nothing beside it).
    var identitiesRepeat: Bool { identities.repeats }

    /// Sends the pending items to the thread, starting it first if need be (or, when no thread
    /// can be started, makes their episodes here).
    private func handOn() {
        guard !pending.isEmpty else { return }
        if worker == nil && !workerUnavailable { worker = Self.startWorker(documentURL: documentURL) }
        guard let worker else {
            workerUnavailable = true
            for item in pending {
                episodes.append(item.draft.episode(resolver: item.base ?? resolver))
                identities.note(episodes[episodes.count - 1])
            }
            pending = []
            return
        }
        worker.queue.send(pending)
        // Room for the next batch at once, rather than grown to it step by step.
        pending = []
        pending.reserveCapacity(Self.batchSize)
    }

    private static func startWorker(documentURL: String) -> (queue: BatchQueue<[Item]>, thread: BackgroundThread<Made, Never>)? {
        let queue = BatchQueue<[Item]>(slots: batchesInFlight)
        let thread = BackgroundThread<Made, Never> {
            // The thread's own resolver: the two threads never share (and contend for) one reference count.
            let resolver = URLResolver(documentURL: documentURL)
            var episodes: [Episode] = []
            var identities = IdentityTally()
            while var batch = queue.receive() {
                for index in batch.indices {
                    // Moved out of the batch, not copied: a copy retains every text of the draft,
                    // and the batch then releases them all again.
                    var draft = FeedBuilder.ItemDraft()
                    swap(&draft, &batch[index].draft)
                    episodes.append(draft.episode(resolver: batch[index].base ?? resolver))
                    identities.note(episodes[episodes.count - 1])
                }
            }
            return (episodes, identities)
        }
        return thread.map { (queue, $0) }
    }

    /// What the thread made: the episodes, and their identities.
    private typealias Made = (episodes: [Episode], identities: IdentityTally)

    /// The identities of episodes, and whether any two share one.
    private struct IdentityTally: Sendable {
        private var seen = Set<String>()
        private(set) var repeats = false

        mutating func note(_ episode: Episode) {
            if !seen.insert(episode.identity).inserted { repeats = true }
        }

        /// Takes in the identities of other episodes.
        mutating func merge(_ other: IdentityTally) {
            repeats = repeats || other.repeats || !seen.isDisjoint(with: other.seen)
        }
    }
}
