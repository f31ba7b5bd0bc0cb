import CSQLite

/// One open SQLite database handle, used by one thread at a time and closed when released.
///
/// Opened with `SQLITE_OPEN_NOMUTEX`: SQLite does no locking of its own on the handle, so
/// the type is deliberately not `Sendable` and each thread or process opens its own.
final class SQLiteConnection {
    /// The database file as given to `sqlite3_open_v2`.
    let path: String
    private let handle: OpaquePointer

    /// SQLite's process-wide settings, made once before the first handle is opened.
    private static let configured: Void = {
        _ = podcast_sqlite3_disable_memory_statistics()
    }()

    /// Opens (and, when missing, creates) the database at `path` for reading and writing.
    init(path: String) throws(SQLiteError) {
        Self.configured
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened else {
            // SQLite could not even allocate a handle to report through.
            throw SQLiteError(code: code == SQLITE_OK ? SQLITE_NOMEM : code)
        }
        guard code == SQLITE_OK else {
            let error = SQLiteError(connection: opened, code: code)
            // A failed open still allocates a handle, which must be released.
            sqlite3_close_v2(opened)
            throw error
        }
        // Extended codes tell a busy recovery from a busy lock, or an fsync failure from a read failure.
        sqlite3_extended_result_codes(opened, 1)
        self.path = path
        self.handle = opened
    }

    deinit {
        // close_v2 defers the close until every statement is finalized, so order of release does not matter;
        // statements hold the connection alive anyway. Its result carries nothing to act on.
        sqlite3_close_v2(handle)
    }

    /// Makes a call that meets a lock wait up to `milliseconds` for it instead of failing with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) throws(SQLiteError) {
        try check(sqlite3_busy_timeout(handle, milliseconds))
    }

    /// True outside an explicit transaction (SQLite's autocommit mode).
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Rows changed by the last INSERT, UPDATE or DELETE that ran on this connection.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Runs one or more `;`-separated statements that return no rows (schema, pragmas, BEGIN/COMMIT).
    func execute(_ sql: String) throws(SQLiteError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    /// Compiles one statement; `persistent` tells SQLite it will be kept and run many times.
    func prepare(_ sql: String, persistent: Bool = false) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        try check(sqlite3_prepare_v3(handle, sql, -1, flags, &statement, nil))
        guard let statement else {
            // SQLite yields no statement for text that is only whitespace or comments.
            throw SQLiteError(code: SQLITE_MISUSE, message: "no SQL statement in \"\(sql)\"")
        }
        return SQLiteStatement(connection: self, handle: statement, sql: sql)
    }

    /// Throws the connection's error for `code` unless it reports success.
    func check(_ code: Int32) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code) }
    }

    /// The error the connection reports for `code`, for statements that fail on it.
    func error(code: Int32) -> SQLiteError {
        SQLiteError(connection: handle, code: code)
    }
}

@available(*, unavailable, message: "an SQLite handle opened with NOMUTEX belongs to one thread")
extension SQLiteConnection: Sendable {}
