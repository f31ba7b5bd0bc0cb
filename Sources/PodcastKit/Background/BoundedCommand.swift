import Glibc
import PodcastPlatform
import PodcastText

/// Running a user's shell command and waiting for it, at most a time limit: `/bin/sh -c`, in a
/// process group of its own (so a limit reached stops everything it started: SIGTERM, then
/// SIGKILL after a grace period), stdin from /dev/null, stdout and stderr onto this process's
/// stderr (the terminal of a foreground run, the worker's log).
///
/// Its exit status comes back through a pipe, not `waitpid`: the worker ignores SIGCHLD (its
/// `--on-complete` commands are reaped by the kernel), which takes the status of every child
/// away. A wrapper shell runs the command with the pipe closed and writes `$?` to it; the pipe's
/// end also bounds the wait with `poll`, without a timer thread or a polling loop.
enum BoundedCommand {
    /// How a command ended, when not well.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// It exited with a status other than 0 (128 + N: killed by signal N).
        case exited(Int32)
        /// It ran past the limit and was stopped.
        case timedOut(Duration)
        /// It could not be started.
        case notStarted(String)

        var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .timedOut(let limit): "was stopped after \(BoundedCommand.seconds(limit)) s (its time limit)"
            case .notStarted(let why): "could not be started: \(why)"
            }
        }
    }

    /// glibc's `POSIX_SPAWN_SETPGROUP`.
    private static let setProcessGroup: Int16 = 0x02
    /// The descriptor the wrapper writes the command's exit status to.
    private static let statusDescriptor: Int32 = 3
    /// The wrapper: the command (`$1`) without the status pipe, then its status into the pipe.
    private static let wrapper = "/bin/sh -c \"$1\" 3>&-; echo $? >&3"

    /// Runs `command` with exactly `environment`; waits for it at most `limit`, then stops its
    /// process group (SIGTERM, and SIGKILL `grace` later). Throws how it failed.
    static func run(_ command: String, environment: [String: String], limit: Duration, grace: Duration = .seconds(2)) throws(Failure) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .notStarted(String(cString: strerror(errno))) }
        // Both close-on-exec (no other command started meanwhile inherits them), and the write
        // end above 3, so the child's dup2 onto 3 always clears close-on-exec.
        let readEnd = fcntl(ends[0], F_DUPFD_CLOEXEC, 10)
        let writeEnd = fcntl(ends[1], F_DUPFD_CLOEXEC, 10)
        close(ends[0])
        close(ends[1])
        defer { if readEnd >= 0 { close(readEnd) } }
        guard readEnd >= 0, writeEnd >= 0 else {
            if writeEnd >= 0 { close(writeEnd) }
            throw .notStarted(String(cString: strerror(errno)))
        }
        let pid: pid_t
        do {
            defer { close(writeEnd) }
            pid = try spawn(command, environment: environment, statusPipe: writeEnd)
        }
        var output: [UInt8] = []
        let ended = read(readEnd, into: &output, until: .now + limit)
        if !ended {
            kill(-pid, SIGTERM)
            _ = read(readEnd, into: &output, until: .now + grace)
            // Also when the wrapper has ended: what it started may ignore SIGTERM.
            kill(-pid, SIGKILL)
            _ = read(readEnd, into: &output, until: .now + .seconds(5))
        }
        // Reaps the wrapper (it has closed the pipe, so it is ending); where SIGCHLD is ignored
        // the kernel did, and this returns at once.
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard ended else { throw .timedOut(limit) }
        let text = String(decoding: output, as: UTF8.self).trimmingWhitespace()
        guard let code = Int32(text) else { throw .exited(128 + SIGKILL) }
        if code != 0 { throw .exited(code) }
    }

    /// Reads `descriptor` to its end or until `deadline`; true when its end came.
    private static func read(_ descriptor: Int32, into output: inout [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watch, 1, Int32(clamping: Int64(Self.milliseconds(left)) + 1))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return true }
            if output.count < 64 { output += buffer[..<count] }
        }
    }

    private static func spawn(_ command: String, environment: [String: String], statusPipe: Int32) throws(Failure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, statusPipe, statusDescriptor)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        DetachedProcess.startWithDefaultSignals(&attributes, flags: setProcessGroup)
        posix_spawnattr_setpgroup(&attributes, 0)

        // The store's database, sockets and the like are not the command's to inherit.
        DetachedProcess.closeInheritedDescriptorsOnExec()
        let arguments: [String] = ["/bin/sh", "-c", wrapper, "podcast-hook", command]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        guard code == 0 else { throw .notStarted(String(cString: strerror(code))) }
        return pid
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) + Double(attoseconds) / 1e18) * 1000
    }

    /// `60`, `0.5`: a limit as the warning says it.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = attoseconds / 100_000_000_000_000_000
        return tenths == 0 ? "\(seconds)" : "\(seconds).\(tenths)"
    }
}
