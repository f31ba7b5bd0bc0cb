import Glibc
import PodcastPlatform

/// The lock that makes a background worker the only one of its home: an exclusive `flock` on
/// `<home>/worker.lock`, held for the worker's whole life and released by the kernel when the
/// process ends however it ends (exit, crash, kill -9), so a dead worker never holds it.
///
/// The descriptor is close-on-exec: a command the worker starts (`--on-complete`) must not keep
/// the lock alive after the worker is gone.
public final class WorkerLock {
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        release()
    }

    /// Takes the lock, or returns nil when another process holds it. Keeps trying for `patience`:
    /// a launcher or `status` probing the lock holds it for microseconds, a worker for good.
    public static func acquire(at path: String, patience: Duration = .seconds(1)) throws(SystemError) -> WorkerLock? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        let deadline = ContinuousClock.now + patience
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let error = SystemError.last("flock", path: path)
                close(descriptor)
                throw error
            }
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                return nil
            }
            usleep(20_000)
        }
        return WorkerLock(descriptor: descriptor)
    }

    /// True when a process (a worker) holds the lock. Probes by taking it and letting go at once.
    public static func isHeld(at path: String) -> Bool {
        do {
            guard let probe = try acquire(at: path, patience: .zero) else { return true }
            probe.release()
            return false
        } catch {
            // No lock file can be made (no home yet): no worker can hold it either.
            return false
        }
    }

    /// Lets go of the lock (closing its descriptor); further calls do nothing.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }
}
