import Glibc

/// What a SIGBUS becomes once the store is open: SQLite shares the write-ahead log's index
/// through a mapping of `state.sqlite-shm`, and when that file can no longer be written (made
/// immutable, its disk or tmpfs full) the next write to the mapping raises SIGBUS, which would
/// kill podcast without a word. No call can return an error from inside SQLite's memory access,
/// so podcast stops there, at once, saying why in one line (the worker's goes to its log). What
/// was recorded is kept: every record is true of the bytes on disk when written (the kill -9
/// guarantee), so `podcast resume` continues once the file is writable again.
enum StoreFault {
    /// The line written on SIGBUS, made before the handler is installed (a handler may only call
    /// what is safe in a signal: `write`, `_exit`).
    nonisolated(unsafe) private static var line: UnsafeMutablePointer<CChar>?

    /// Turns SIGBUS into that one line and exit status 1, for the store at `database`.
    static func report(forStoreAt database: String) {
        guard line == nil else { return }
        line = strdup("error: the store's shared memory file \(database)-shm could not be written (SIGBUS): it is immutable, "
            + "or its disk is full; podcast stopped at once, its downloads as last recorded: make that file writable "
            + "or free space, then run podcast resume\n")
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            if let line = StoreFault.line { _ = write(STDERR_FILENO, line, strlen(line)) }
            _exit(1)
        }
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, nil)
    }
}
