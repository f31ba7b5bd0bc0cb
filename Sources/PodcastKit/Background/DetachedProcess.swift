import Glibc
import PodcastPlatform

/// Starting a process that outlives its parent and its terminal: a session of its own (so no
/// controlling terminal, and no SIGHUP when the launching terminal goes), stdin from /dev/null,
/// stdout and stderr appended to a log file, signals at their defaults and none blocked.
public enum DetachedProcess {
    /// glibc's `POSIX_SPAWN_SETSID` (spawn.h), which Swift does not import: it is a GNU extension.
    private static let newSession: Int32 = 0x80

    /// Starts `executable` with `arguments` and `environment`, its output appended to `log`;
    /// returns its pid without waiting for it.
    public static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], log: String
    ) throws(SystemError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        startWithDefaultSignals(&attributes, flags: Int16(newSession))

        closeInheritedDescriptorsOnExec()
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard code == 0 else { throw SystemError(call: "posix_spawn", path: executable, code: code) }
        return pid
    }

    /// Marks every descriptor above stderr close-on-exec. A detached process must not inherit
    /// them: whoever waits for this process to end by reading to the end of a pipe it handed
    /// down (a test harness, `$(podcast …)` in a shell) would otherwise wait for the detached one
    /// too. glibc's `posix_spawn_file_actions_addclosefrom_np` would do it in the child, but Swift
    /// does not import it.
    static func closeInheritedDescriptorsOnExec() {
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), descriptor > STDERR_FILENO, descriptor != own else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// Sets `attributes` (with `flags` besides) so the child starts with no signal blocked and
    /// with the default action for every signal podcast ignores or catches: ignored signals
    /// would otherwise stay ignored across exec.
    static func startWithDefaultSignals(_ attributes: inout posix_spawnattr_t, flags: Int16) {
        posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGXFSZ] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
    }
}
