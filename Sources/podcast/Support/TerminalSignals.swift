import Glibc
import Synchronization

/// The terminal's signals while a display redraws itself in place: SIGWINCH (resized) and
/// SIGCONT (back from Ctrl-Z) ask the next frame to redraw everything, and SIGTSTP (Ctrl-Z) gives
/// the cursor back before the process stops. Handlers only touch atomics and make
/// async-signal-safe calls (write, signal, raise).
enum TerminalSignals {
    /// What happened since the last frame.
    struct Events: OptionSet {
        let rawValue: Int
        /// The terminal changed size: the lines drawn may have been rewrapped.
        static let resized = Events(rawValue: 1)
        /// The process was stopped and continued: the shell wrote below the frame meanwhile.
        static let continued = Events(rawValue: 2)
    }

    private static let pending = Atomic<Int>(0)
    /// The descriptor whose cursor a display has hidden, or -1.
    private static let hiddenCursor = Atomic<Int32>(-1)

    /// Starts watching for a display drawing on `descriptor` whose cursor it hides.
    static func watch(_ descriptor: Int32) {
        // Both atomics are made here, before a handler could be the first to touch them.
        pending.store(0, ordering: .relaxed)
        hiddenCursor.store(descriptor, ordering: .relaxed)
        signal(SIGWINCH, { _ in TerminalSignals.pending.bitwiseOr(Events.resized.rawValue, ordering: .relaxed) })
        signal(SIGCONT, { _ in
            signal(SIGTSTP, TerminalSignals.stopHandler)
            TerminalSignals.pending.bitwiseOr(Events.continued.rawValue, ordering: .relaxed)
        })
        signal(SIGTSTP, stopHandler)
        // A parent (a test runner, a supervisor) may have left them blocked: take them back.
        var signals = sigset_t()
        sigemptyset(&signals)
        for watched in [SIGWINCH, SIGCONT, SIGTSTP] { sigaddset(&signals, watched) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Ctrl-Z: the cursor back, then stop as the default action would (SIGTSTP is blocked in
    /// its handler, so the raised one stops the process as soon as the handler returns).
    private static let stopHandler: @convention(c) (Int32) -> Void = { _ in
        TerminalSignals.restoreCursor()
        signal(SIGTSTP, SIG_DFL)
        raise(SIGTSTP)
    }

    /// The events since the last call, cleared.
    static func take() -> Events {
        Events(rawValue: pending.exchange(0, ordering: .relaxed))
    }

    /// Shows the cursor again and erases what is below it, if a display hid it; safe in a signal handler.
    static func restoreCursor() {
        let descriptor = hiddenCursor.load(ordering: .relaxed)
        guard descriptor >= 0 else { return }
        let restore: StaticString = "\u{1B}[?25h"
        _ = write(descriptor, restore.utf8Start, restore.utf8CodeUnitCount)
    }

    /// Stops watching: the display has ended and shown its cursor.
    static func release() {
        hiddenCursor.store(-1, ordering: .relaxed)
        signal(SIGTSTP, SIG_DFL)
    }
}
