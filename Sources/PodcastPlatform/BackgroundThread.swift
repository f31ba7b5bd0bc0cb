#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Work started on a thread of its own, to run beside the caller's (a machine has more than one
/// core); `wait` returns its result. Meant for work that owns everything it touches, such as a
/// downloaded file's check, tags and digest, taken while the network reads (`FilePreparer`): the
/// work is `@Sendable` and its result is handed back by value.
/// Not Sendable: the thread that starts the work waits for it.
public final class BackgroundThread<Success: Sendable, Failure: Error> {
    private let outcome: Outcome
    private var thread: pthread_t?

    /// The work's result, written once by its thread and taken by `wait`.
    private final class Outcome: Sendable {
        let result = Mutex<Result<Success, Failure>?>(nil)
    }

    /// Starts `work` on a new thread; nil when no thread can be made (the caller then does the
    /// work itself).
    public init?(_ work: @escaping @Sendable () throws(Failure) -> Success) {
        let outcome = Outcome()
        self.outcome = outcome
        do throws(SystemError) {
            thread = try ThreadStart.joinable {
                let result = Result { () throws(Failure) -> Success in try work() }
                outcome.result.withLock { $0 = result }
            }
        } catch {
            return nil
        }
    }

    /// Waits for the work to end and returns its result, or throws its error. Call once: the
    /// result is handed over, not copied.
    public func wait() throws(Failure) -> Success {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
        guard let result = outcome.result.withLock({ $0.take() }) else {
            preconditionFailure("BackgroundThread: wait called twice")
        }
        return try result.get()
    }
}
