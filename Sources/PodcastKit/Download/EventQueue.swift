import Dispatch
import Synchronization

/// Hands events from other threads to the one thread that waits for them.
final class EventQueue<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    private let available = DispatchSemaphore(value: 0)

    /// Adds an event (any thread).
    func post(_ event: Event) {
        events.withLock { $0.append(event) }
        available.signal()
    }

    /// Every event posted so far, oldest first, waiting until there is one; only for threads that
    /// may block. May return none: an earlier call can take events whose signals are still counted.
    func drain() -> [Event] {
        available.wait()
        return events.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }
}
