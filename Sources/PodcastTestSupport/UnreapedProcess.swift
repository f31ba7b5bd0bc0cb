import Foundation
import Glibc
import PodcastKit
import PodcastPlatform
import Synchronization

/// A process that only the test reaps. `ChildProcess` (Foundation's `Process`) waits for its
/// child as soon as it ends; this one is spawned with `posix_spawn` and nothing waits for it, so
/// once it dies it stays a zombie (`Z` in `/proc/<pid>/stat`) until `reap()`, as a killed process
/// does under a parent that never reaps (a PID 1 without an init). Output goes to files.
public final class UnreapedProcess: Sendable {
    /// The process id.
    public let pid: pid_t
    private let outputDirectory: TemporaryDirectory
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments` and exactly `environment`, stdin from /dev/null.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
        outputDirectory = try TemporaryDirectory(prefix: "unreaped-output")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outputDirectory.path("stdout"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, outputDirectory.path("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // The test's threads block signals their own way: the child starts with none blocked and defaults.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard code == 0 else { throw SystemError(call: "posix_spawn", path: executable.path, code: code) }
        self.pid = pid
    }

    /// The state letter in `/proc/<pid>/stat` (`R`, `S`, `Z`…), or nil once reaped.
    public var state: Character? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: end)...].split(separator: " ").first?.first
    }

    /// Polls (every 10 ms, for at most `timeout`) until the process is a zombie; true if it became one.
    public func waitUntilZombie(upTo timeout: Duration = .seconds(10)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while state != "Z" {
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Kills the process (SIGKILL) if it still runs and reaps it; returns the raw wait status.
    /// Safe to call more than once.
    @discardableResult
    public func reap() -> Int32 {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            reaped = status
            return status
        }
    }

    /// What the process wrote to stderr so far.
    public var stderr: String {
        (try? String(contentsOfFile: outputDirectory.path("stderr"), encoding: .utf8)) ?? ""
    }

    deinit {
        reap()
    }
}
