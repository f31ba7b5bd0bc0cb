#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place podcast starts a thread (the engine's, a `BackgroundThread`, the signal
/// watcher): `body` is handed to the new thread whole, and a thread that cannot be made is the
/// caller's error to handle, with `body` never run.
public enum ThreadStart {
    /// Starts `body` on a new joinable thread and returns it. Task-local values do not cross into
    /// a thread by themselves: the starter's file system calls (`FileIO.calls`, a test's failing
    /// ones) are handed over, so what the thread writes goes through them too.
    public static func joinable(_ body: sending @escaping () -> Void) throws(SystemError) -> pthread_t {
        let entry = Entry(body, calls: FileIO.calls)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(entry).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let entry = Unmanaged<Entry>.fromOpaque(context).takeRetainedValue()
            FileIO.$calls.withValue(entry.calls) { entry.body() }
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<Entry>.fromOpaque(context).release()
            throw SystemError(call: "pthread_create", code: created)
        }
        return thread
    }

    /// Starts `body` on a new thread that nobody waits for.
    public static func detached(_ body: sending @escaping () -> Void) throws(SystemError) {
        pthread_detach(try joinable(body))
    }

    /// What the C entry point runs: `body`, handed over from the starting thread.
    // @unchecked: `body` is `sending`, so the starting thread keeps no reference to what it uses.
    private final class Entry: @unchecked Sendable {
        let body: () -> Void
        let calls: FileSystemCalls
        init(_ body: @escaping () -> Void, calls: FileSystemCalls) {
            self.body = body
            self.calls = calls
        }
    }
}
