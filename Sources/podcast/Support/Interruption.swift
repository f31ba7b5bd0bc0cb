import Glibc

/// Ctrl-C and SIGTERM during a download: give the cursor back, say how to continue, exit 130.
enum Interruption {
    /// Installs the handlers for the rest of the process.
    static func exitCleanlyOnSignals() {
        // A signal handler may only make async-signal-safe calls: isatty, write and _exit are.
        let handler: @convention(c) (Int32) -> Void = { _ in
            if isatty(STDERR_FILENO) == 1 {
                let restore: StaticString = "\u{1B}[?25h\u{1B}[0J"
                _ = write(STDERR_FILENO, restore.utf8Start, restore.utf8CodeUnitCount)
            }
            let message: StaticString = "\ninterrupted: finished episodes are kept; run the same command again for the rest\n"
            _ = write(STDERR_FILENO, message.utf8Start, message.utf8CodeUnitCount)
            _exit(130)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        // A parent (a test runner, a supervisor) may have left them blocked: take them back.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
