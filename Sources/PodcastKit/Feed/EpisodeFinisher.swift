/// Makes the episodes of finished items (`ItemDraft.episode(resolver:)`: decoding their texts,
/// dates, durations and show notes), keeping document order.
///
/// A document's first items are made at once, on the calling thread. Once a document proves
/// long, the rest go in batches to a thread of their own (`HandOff`), so that reading and the
/// making of episodes run side by side on two cores.
final class EpisodeFinisher {
    /// Items made on the calling thread before a thread is started, and the size of each batch.
    static let batchSize = 64
    /// The most batches out at once.
    static let batchesInFlight = 8

    private typealias Batch = [(FeedBuilder.ItemDraft, URLResolver?)]

    private let documentURL: String
    private let resolver: URLResolver
    private var episodes: [Episode] = []
    private var pending: Batch = []
    private var worker: (handOff: HandOff<Batch>, made: Made)?
    /// True when no thread could be started: every episode is then made on the calling thread.
    private var workerUnavailable = false
    private var finished = false

    /// What the thread made: written only there, read once the thread has ended.
    private final class Made: @unchecked Sendable {
        /// The thread's own resolver for the document: the two threads never share (and contend
        /// for) one reference count.
        let resolver: URLResolver
        var episodes: [Episode] = []

        init(documentURL: String) {
            resolver = URLResolver(documentURL: documentURL)
        }
    }

    /// A finisher for the items of the document at `documentURL`.
    init(documentURL: String) {
        self.documentURL = documentURL
        resolver = URLResolver(documentURL: documentURL)
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
        finished = true
        guard let worker else {
            episodes += pending.map { $0.0.episode(resolver: $0.1 ?? resolver) }
            pending = []
            return episodes
        }
        handOn()
        worker.handOff.finish()
        _ = worker.handOff.takeReturned()
        // The first episodes go in front of the thread's, which are moved, not copied.
        var made = worker.made.episodes
        worker.made.episodes = []
        made.insert(contentsOf: episodes, at: 0)
        episodes = made
        return episodes
    }

    private func handOn() {
        guard !pending.isEmpty else { return }
        if worker == nil && !workerUnavailable { worker = Self.startWorker(documentURL: documentURL) }
        guard let worker else {
            workerUnavailable = true
            episodes += pending.map { $0.0.episode(resolver: $0.1 ?? resolver) }
            pending = []
            return
        }
        // Made batches are freed here, where their drafts were allocated.
        _ = worker.handOff.takeReturned()
        worker.handOff.send(pending)
        pending = []
    }

    private static func startWorker(documentURL: String) -> (handOff: HandOff<Batch>, made: Made)? {
        let made = Made(documentURL: documentURL)
        let handOff = HandOff<Batch>(slots: batchesInFlight) { drafts in
            for (draft, base) in drafts {
                made.episodes.append(base.map(draft.episode) ?? draft.episode(resolver: made.resolver))
            }
        }
        return handOff.map { ($0, made) }
    }
}
