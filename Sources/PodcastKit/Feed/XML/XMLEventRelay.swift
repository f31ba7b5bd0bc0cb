/// Takes the parsing thread's event batches to their handler: the first ones at once, on the
/// parsing thread; once a document proves long, the rest on a thread of their own (`HandOff`),
/// so that libxml2 and the handler (the feed builder) run side by side on two cores. Emptied
/// batches come back to be recorded into again: nothing is allocated per batch.
final class XMLEventRelay<Handler: XMLEventHandler> {
    /// Batches handled on the parsing thread before a thread is started.
    static var inlineBatches: Int { 2 }
    /// The most batches out at once.
    static var batchesInFlight: Int { 2 }

    private let handler: Handler
    private var handOff: HandOff<XMLEventBatch>?
    private var relayed = 0
    /// True when no thread could be started: every batch is then handled on the parsing thread.
    private var threadUnavailable = false
    private var spare: [XMLEventBatch] = []

    /// A relay to `handler`, which is touched by one thread at a time until `finish`.
    init(handler: Handler) {
        self.handler = handler
    }

    deinit {
        finish()
    }

    /// Hands `batch` on and leaves an empty one in its place.
    func relay(_ batch: inout XMLEventBatch) {
        relayed += 1
        if handOff == nil && !threadUnavailable && relayed > Self.inlineBatches {
            let handler = self.handler
            handOff = HandOff(slots: Self.batchesInFlight) { batch in
                batch.replay(to: handler)
                batch.removeAll()
            }
            threadUnavailable = handOff == nil
        }
        guard let handOff else {
            batch.replay(to: handler)
            batch.removeAll()
            return
        }
        spare += handOff.takeReturned()
        var next = spare.popLast() ?? XMLEventBatch()
        swap(&batch, &next)
        handOff.send(next)
    }

    /// Waits until every batch relayed has been handled.
    func finish() {
        handOff?.finish()
        handOff = nil
        spare = []
    }
}
