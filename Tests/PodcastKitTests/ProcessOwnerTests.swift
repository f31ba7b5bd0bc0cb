import Glibc
@testable import PodcastKit
@testable import PodcastPlatform
import Testing

/// Whether a process that owns a download still runs: pid, boot, start time, and not a zombie.
@Suite(.timeLimit(.minutes(5))) struct ProcessOwnerTests {
    @Test func thisProcessIsAlive() {
        #expect(ProcessOwner.current.isAlive)
    }

    @Test func anotherBootOrStartTimeIsNotThisProcess() {
        let current = ProcessOwner.current
        #expect(!ProcessOwner(pid: current.pid, boot: "another-boot", started: current.started).isAlive)
        #expect(!ProcessOwner(pid: current.pid, boot: current.boot, started: (current.started ?? 0) + 1).isAlive)
    }

    /// A child that has exited but is not reaped is a zombie: `kill(pid, 0)` still succeeds, yet it
    /// owns nothing any more (under a PID 1 that never reaps it would stay so forever).
    @Test func aZombieIsNotAlive() throws {
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { arguments.forEach { free($0) } }
        #expect(posix_spawn(&pid, "/bin/true", nil, nil, arguments, environ) == 0)
        defer { var status: Int32 = 0; waitpid(pid, &status, 0) }
        let owner = ProcessOwner(pid: pid, boot: ProcessOwner.currentBoot, started: ProcessOwner.startTime(of: pid))

        // Wait (bounded) for the child to exit; it stays a zombie until the waitpid above.
        var info = siginfo_t()
        #expect(waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == 0)
        #expect(ProcessOwner.status(of: pid)?.state == "Z")
        #expect(kill(pid, 0) == 0)
        #expect(!owner.isAlive)
    }
}
