import Glibc
import PodcastKit
import PodcastPlatform

/// The write end of the pipe the signal handler tells the watcher thread through (-1 until set).
/// Written once before the handler is installed, then only read by it.
nonisolated(unsafe) private var interruptionPipe: Int32 = -1

/// Ctrl-C, SIGTERM and SIGHUP (the terminal closed) during a download: the first one asks the
/// batch to stop and keep every partial file's resume data; a second one gives the cursor back
/// and exits 130 at once.
enum Interruption {
    /// Calls `stop` on a watcher thread at the first of `signals`, for the rest of the process.
    static func forward(to stop: @escaping @Sendable () -> Void, signals stopping: [Int32] = [SIGINT, SIGTERM, SIGHUP]) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        interruptionPipe = ends[1]

        // A signal handler may only make async-signal-safe calls: write is one.
        let handler: @convention(c) (Int32) -> Void = { _ in
            var byte: UInt8 = 1
            _ = write(interruptionPipe, &byte, 1)
        }
        // A parent (a test runner, a supervisor) may have left them blocked: take them back.
        var signals = sigset_t()
        sigemptyset(&signals)
        for stopping in stopping {
            signal(stopping, handler)
            sigaddset(&signals, stopping)
        }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)

        let watcher = Watcher(readEnd: ends[0], stop: stop)
        do throws(SystemError) { try ThreadStart.detached { watcher.watch() } } catch {
            // Nobody would read the pipe: the signals kill the process as they would without us.
            for stopping in stopping { signal(stopping, SIG_DFL) }
        }
    }

    /// Reads the pipe: the first byte stops the batch, the second exits.
    private final class Watcher {
        let readEnd: Int32
        let stop: @Sendable () -> Void

        init(readEnd: Int32, stop: @escaping @Sendable () -> Void) {
            self.readEnd = readEnd
            self.stop = stop
        }

        func watch() {
            var signalled = 0
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                signalled += 1
                if signalled == 1 {
                    stop()
                } else {
                    exitNow()
                }
            }
        }

        private func exitNow() {
            TerminalSignals.restoreCursor()
            let message: StaticString = "\ninterrupted again: stopped at once; run podcast resume to continue\n"
            _ = write(STDERR_FILENO, message.utf8Start, message.utf8CodeUnitCount)
            _exit(130)
        }
    }
}
