import Glibc
import PodcastPlatform
import PodcastText

/// Makes sure a background worker will take the queued work, starting one when none runs.
///
/// Call it after the work is committed to the store: a worker that is leaving looks at the queue
/// once more after letting go of its lock, so work queued before this probe is never stranded.
public enum WorkerLauncher {
    /// The running worker's pid, starting `podcast worker` (this same executable, detached) when
    /// no process holds the worker lock. Waits up to `patience` for a new worker to take the lock,
    /// so `status` right after sees it running; nil when no pid could be told.
    public static func ensureWorker(paths: PodcastPaths, environment: [String: String], patience: Duration = .seconds(5)) throws(SystemError) -> Int32? {
        if WorkerLock.isHeld(at: paths.workerLock) { return runningWorkerPID(paths: paths) }
        let pid = try DetachedProcess.spawn(executable, arguments: ["worker"], environment: environment, log: paths.workerLog)
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            if recordedWorkerPID(paths: paths) == pid { return pid }
            var status: Int32 = 0
            // It ended at once: another worker, started a moment earlier, holds the lock.
            if waitpid(pid, &status, WNOHANG) == pid { return runningWorkerPID(paths: paths) }
            usleep(10_000)
        }
        return pid
    }

    /// This executable's path (so `ps` names the worker), or `/proc/self/exe` when it cannot be read.
    private static var executable: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "/proc/self/exe" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The pid in `worker.pid` when a worker holds the lock, else nil.
    public static func runningWorkerPID(paths: PodcastPaths) -> Int32? {
        WorkerLock.isHeld(at: paths.workerLock) ? recordedWorkerPID(paths: paths) : nil
    }

    /// The pid the last worker wrote to `worker.pid` (it may have ended since).
    public static func recordedWorkerPID(paths: PodcastPaths) -> Int32? {
        var text = ""
        guard (try? FileIO.read(paths.workerPID, { text += String(decoding: $0, as: UTF8.self); return true })) != nil else { return nil }
        return Int32(text.trimmingWhitespace())
    }

    /// Records this process as the worker in `worker.pid` (after taking the lock).
    public static func recordWorkerPID(paths: PodcastPaths) throws(SystemError) {
        let writer = try AtomicFileWriter(destination: paths.workerPID)
        Array("\(getpid())\n".utf8).withUnsafeBytes { writer.write($0) }
        try writer.commit()
    }
}
