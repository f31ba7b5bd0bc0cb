import Dispatch
import Synchronization

/// Batches of work handed from one thread to a thread of its own and back: the sender `send`s
/// a batch, the thread runs `work` on it, and the batch comes back (`takeReturned`) to be reused
/// or freed by the sender, where it was allocated (frees from another thread contend for the
/// allocator's lock on every one). At most `slots` batches are out at once, so memory stays
/// bounded however far the sender runs ahead.
///
/// One thread sends, takes back and finishes. Whoever holds a batch is the only one to touch it,
/// so ownership moves with it.
final class HandOff<Batch> {
    private let channel: Channel
    private let thread: BackgroundThread<Void>
    private var finished = false

    private final class Channel: @unchecked Sendable {
        // @unchecked: batches move between the two threads whole, never shared (see the type's comment).
        let sent = EventQueue<Parcel>()
        let returned = Mutex<[Parcel]>([])
        let freeSlots: DispatchSemaphore

        init(slots: Int) {
            freeSlots = DispatchSemaphore(value: slots)
        }
    }

    /// A batch on its way; nil ends the thread.
    private struct Parcel: @unchecked Sendable {
        var batch: Batch?
    }

    /// Starts the thread that runs `work` on each batch sent; nil when no thread can be made
    /// (the caller then does the work itself).
    init?(slots: Int, work: @escaping (inout Batch) -> Void) {
        let channel = Channel(slots: slots)
        let box = WorkBox(work)
        guard let thread = BackgroundThread({ () -> Void in
            while true {
                for parcel in channel.sent.drain() {
                    guard var batch = parcel.batch else { return }
                    box.work(&batch)
                    channel.returned.withLock { $0.append(Parcel(batch: batch)) }
                    channel.freeSlots.signal()
                }
            }
        }) else { return nil }
        self.channel = channel
        self.thread = thread
    }

    deinit {
        finish()
    }

    /// Hands `batch` to the thread, first waiting for a free slot.
    func send(_ batch: Batch) {
        precondition(!finished, "HandOff: send after finish")
        channel.freeSlots.wait()
        channel.sent.post(Parcel(batch: batch))
    }

    /// The batches done since the last call, oldest first.
    func takeReturned() -> [Batch] {
        channel.returned.withLock { returned in
            defer { returned.removeAll(keepingCapacity: true) }
            return returned.compactMap(\.batch)
        }
    }

    /// Waits until every batch sent is done and ends the thread. Later calls do nothing.
    func finish() {
        guard !finished else { return }
        finished = true
        channel.sent.post(Parcel(batch: nil))
        // The work throws nothing.
        try? thread.wait()
    }

    /// The work, carried to the thread (it is only ever called there).
    private final class WorkBox: @unchecked Sendable {
        let work: (inout Batch) -> Void

        init(_ work: @escaping (inout Batch) -> Void) {
            self.work = work
        }
    }
}
