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

    /// Adds events, in order (any thread).
    func post(contentsOf newEvents: some Sequence<Event>) {
        events.withLock { $0.append(contentsOf: newEvents) }
        available.signal()
    }

    /// Every event posted so far, oldest first, waiting until there is one or until `deadline`
    /// (nil: no limit); only for threads that may block. May return none: at the deadline, or
    /// when an earlier call took events whose signals are still counted.
    func drain(until deadline: ContinuousClock.Instant? = nil) -> [Event] {
        if let deadline {
            let wait = max(.zero, deadline - .now).components
            let nanoseconds = wait.seconds * 1_000_000_000 + wait.attoseconds / 1_000_000_000
            guard available.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else { return [] }
        } else {
            available.wait()
        }
        return events.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }
}
