#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place podcast starts a thread (the engine's, a `BackgroundThread`, the signal
/// watcher): `body` is handed to the new thread whole, and a thread that cannot be made is the
/// caller's error to handle, with `body` never run.
public enum ThreadStart {
    /// Starts `body` on a new joinable thread and returns it.
    public static func joinable(_ body: sending @escaping () -> Void) throws(SystemError) -> pthread_t {
        let entry = Entry(body)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(entry).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Entry>.fromOpaque(context).takeRetainedValue().body()
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
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}
