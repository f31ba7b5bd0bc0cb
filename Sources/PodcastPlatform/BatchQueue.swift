import Dispatch
import Synchronization

/// Batches handed from one thread to another, by value: the sender `send`s, the receiver
/// `receive`s them in order until the sender `close`s. At most `slots` batches are on the way at
/// once (`send` waits for room), so memory stays bounded however far the sender runs ahead.
public final class BatchQueue<Batch: Sendable>: Sendable {
    private let state = Mutex<(batches: [Batch], closed: Bool)>(([], false))
    /// Signalled once per batch sent and once on closing.
    private let available = DispatchSemaphore(value: 0)
    /// Signalled once per batch received.
    private let room: DispatchSemaphore

    /// A queue with room for `slots` batches.
    public init(slots: Int) {
        room = DispatchSemaphore(value: slots)
    }

    /// Hands `batch` on, first waiting until there is room (the receiver takes one).
    public func send(_ batch: Batch) {
        room.wait()
        state.withLock { $0.batches.append(batch) }
        available.signal()
    }

    /// Says no more batches will be sent.
    public func close() {
        state.withLock { $0.closed = true }
        available.signal()
    }

    /// The next batch, waiting for it; nil once the queue is closed and every batch was received.
    public func receive() -> Batch? {
        available.wait()
        let batch = state.withLock { state in state.batches.isEmpty ? nil : state.batches.removeFirst() }
        if batch != nil { room.signal() }
        return batch
    }
}
