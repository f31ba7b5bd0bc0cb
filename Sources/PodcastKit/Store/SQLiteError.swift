import CSQLite

/// A failed SQLite call, as the thin wrapper reports it; `StoreError` turns it into advice for the user.
struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (`SQLITE_BUSY_RECOVERY`, `SQLITE_IOERR_FSYNC`, …).
    var code: Int32
    /// SQLite's message for the failure, or ours for a failure SQLite did not report.
    var message: String
    /// For a row read whole whose stored settings this version cannot read: which record, and
    /// why (`StoreError.Kind.unreadableRecord`).
    var unreadableRecord: String?

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_IOERR`, …): the low byte of the extended code.
    var primaryCode: Int32 { code & 0xFF }

    var description: String { "\(message) (SQLite error \(code))" }

    /// The error a connection reports for its most recent failed call.
    init(connection handle: OpaquePointer, code: Int32) {
        self.code = code
        // The handle's message describes the last failed call on it, which is the one being reported.
        if let message = sqlite3_errmsg(handle) {
            self.message = String(cString: message)
        } else {
            self.message = SQLiteError.text(for: code)
        }
    }

    /// An error with SQLite's standard text for `code`, or with `message` when given.
    init(code: Int32, message: String? = nil) {
        self.code = code
        self.message = message ?? SQLiteError.text(for: code)
    }

    /// The error for `record` (`background batch 3`) whose stored settings do not read.
    static func unreadable(_ record: String, _ error: StoredSettingsError) -> SQLiteError {
        var failure = SQLiteError(code: SQLITE_MISMATCH, message: "\(record): \(error.reason)")
        failure.unreadableRecord = "\(record): \(error.reason)"
        return failure
    }

    private static func text(for code: Int32) -> String {
        guard let text = sqlite3_errstr(code) else { return "unknown SQLite error" }
        return String(cString: text)
    }
}
