import Dispatch
import Synchronization

/// Hands events from the engine thread to the thread that waits for them.
final class EventQueue<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    private let available = DispatchSemaphore(value: 0)

    /// Adds an event (any thread).
    func post(_ event: Event) {
        events.withLock { $0.append(event) }
        available.signal()
    }

    /// The next event, waiting for one; only for threads that may block.
    func next() -> Event? {
        available.wait()
        return events.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
