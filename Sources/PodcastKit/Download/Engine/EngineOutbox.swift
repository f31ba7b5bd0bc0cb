/// The events of one turn of the engine loop, handed over together at its end: the thread that
/// receives them wakes once per turn, not once per event (2,000 small files make 6,000 events).
/// Used only on the engine thread.
final class EngineOutbox {
    private let deliver: @Sendable ([TransferEvent]) -> Void
    private var events: [TransferEvent] = []

    init(deliver: @escaping @Sendable ([TransferEvent]) -> Void) {
        self.deliver = deliver
    }

    /// Adds an event to this turn's.
    func post(_ event: TransferEvent) {
        events.append(event)
    }

    /// Hands over this turn's events, if there are any.
    func flush() {
        guard !events.isEmpty else { return }
        let turn = events
        events = []
        deliver(turn)
    }
}
