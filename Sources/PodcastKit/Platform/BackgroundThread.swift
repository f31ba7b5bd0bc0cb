#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Work started on a thread of its own, to run beside the caller's (a machine has more than one
/// core); `wait` returns its result. Meant for work that owns everything it touches, such as a
/// store opened for it alone. Not Sendable: the thread that starts the work waits for it.
public final class BackgroundThread<Success: Sendable> {
    private let job: Job
    private var thread: pthread_t?

    /// Starts `work` on a new thread; nil when no thread can be made (the caller then does the
    /// work itself).
    public init?(_ work: @escaping @Sendable () throws -> Success) {
        job = Job(work)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(job as ThreadJob).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadJob>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<ThreadJob>.fromOpaque(context).release()
            return nil
        }
        self.thread = thread
    }

    /// Waits for the work to end and returns its result, or throws its error. Call once: the
    /// result is handed over, not copied (an array of them is then the caller's alone).
    public func wait() throws -> Success {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
        return try job.takeOutcome().get()
    }

    private final class Job: ThreadJob, @unchecked Sendable {
        private let work: @Sendable () throws -> Success
        // Written by the work's thread before it ends; read after `pthread_join`, which orders the two.
        private var outcome: Result<Success, any Error>?

        init(_ work: @escaping @Sendable () throws -> Success) {
            self.work = work
        }

        func takeOutcome() -> Result<Success, any Error> {
            defer { outcome = nil }
            return outcome!
        }

        override func run() {
            outcome = Result { try work() }
        }
    }
}

/// What a thread started by `BackgroundThread` runs (not generic, so a C thread entry can call it).
class ThreadJob {
    func run() {}
}
