import CSQLite
import FoundationEssentials

/// One compiled SQL statement, finalized when released.
///
/// Parameters are numbered from 1 (or named `:name`), result columns from 0, as in SQLite's C API.
final class SQLiteStatement {
    /// Kept so the connection outlives its statements and reports their errors.
    private let connection: SQLiteConnection
    private let handle: OpaquePointer
    /// The statement's text, for error messages.
    let sql: String
    /// Parameter numbers by name, found once each: SQLite looks a name up by comparing it with
    /// every parameter's, and a cached statement binds the same names again and again.
    private var parameterIndices: [String: Int32] = [:]

    init(connection: SQLiteConnection, handle: OpaquePointer, sql: String) {
        self.connection = connection
        self.handle = handle
        self.sql = sql
    }

    deinit {
        // finalize repeats the last step's error, which was already thrown from step().
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// Binds `value` (NULL when nil) to parameter `index`, counted from 1.
    func bind(_ value: some SQLiteBindable, at index: Int32) throws(SQLiteError) {
        try connection.check(value.bind(to: handle, at: index))
    }

    /// Binds `value` (NULL when nil) to the parameter named `name`, such as `:term`.
    func bind(_ value: some SQLiteBindable, named name: String) throws(SQLiteError) {
        try bind(value, at: index(ofParameter: name))
    }

    /// Binds NULL to parameter `index`, counted from 1.
    func bindNull(at index: Int32) throws(SQLiteError) {
        try connection.check(sqlite3_bind_null(handle, index))
    }

    /// Binds NULL to the parameter named `name`.
    func bindNull(named name: String) throws(SQLiteError) {
        try bindNull(at: index(ofParameter: name))
    }

    private func index(ofParameter name: String) throws(SQLiteError) -> Int32 {
        if let known = parameterIndices[name] { return known }
        let index = sqlite3_bind_parameter_index(handle, name)
        // A misspelt name would otherwise leave the parameter NULL without a word.
        guard index > 0 else {
            throw SQLiteError(code: SQLITE_RANGE, message: "no parameter \(name) in \"\(sql)\"")
        }
        parameterIndices[name] = index
        return index
    }

    // MARK: Running

    /// Advances to the next row: true when a row is ready to read, false when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code: code)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws(SQLiteError) {
        while try step() {}
    }

    /// Runs the statement and reads every row with `read`.
    func rows<Row>(_ read: (SQLiteStatement) throws(SQLiteError) -> Row) throws(SQLiteError) -> [Row] {
        var rows: [Row] = []
        while try step() {
            rows.append(try read(self))
        }
        return rows
    }

    /// Runs the statement and reads its first row with `read`, or returns nil when there is none.
    func firstRow<Row>(_ read: (SQLiteStatement) throws(SQLiteError) -> Row) throws(SQLiteError) -> Row? {
        guard try step() else { return nil }
        let row = try read(self)
        // A statement left mid-run holds its read snapshot (and blocks checkpoints) until finalized,
        // which would otherwise depend on when ARC happens to release it.
        try reset()
        return row
    }

    /// Makes the statement ready to run again with no parameters bound.
    func resetForReuse() {
        // reset repeats the last run's error, which was already thrown from step().
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Makes the statement ready to run again; bindings are kept.
    func reset() throws(SQLiteError) {
        try connection.check(sqlite3_reset(handle))
    }

    // MARK: Reading columns of the current row

    /// True when column `index` (from 0) of the current row is NULL.
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as an integer, or nil when NULL.
    func optionalInt64(at index: Int32) -> Int64? {
        isNull(at: index) ? nil : sqlite3_column_int64(handle, index)
    }

    /// Column `index` as an integer, or nil when NULL or beyond `Int`.
    func optionalInt(at index: Int32) -> Int? {
        optionalInt64(at: index).flatMap { Int(exactly: $0) }
    }

    /// Column `index` as a floating-point number, or nil when NULL.
    func optionalDouble(at index: Int32) -> Double? {
        isNull(at: index) ? nil : sqlite3_column_double(handle, index)
    }

    /// Column `index` as UTF-8 text, or nil when NULL.
    func optionalString(at index: Int32) -> String? {
        // NULL is the only value without text (an empty string is ""): no separate type check,
        // which cost a third call per column of every row read.
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        // Ask for the length after the text: column_text may convert the value and change it.
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Runs `body` on the bytes of column `index` as a blob (none for NULL), valid only during the call.
    func withBlob<T, Failure: Error>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws(Failure) -> T) throws(Failure) -> T {
        // Ask for the length after the bytes, as for text.
        let bytes = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
    }

    /// Column `index` as an integer; NULL is an error.
    func int64(at index: Int32) throws(SQLiteError) -> Int64 {
        try required(optionalInt64(at: index), at: index, expected: "an integer")
    }

    /// Column `index` as an `Int`; NULL or a value beyond `Int` is an error.
    func int(at index: Int32) throws(SQLiteError) -> Int {
        try required(optionalInt(at: index), at: index, expected: "an integer")
    }

    /// Column `index` as text; NULL is an error.
    func string(at index: Int32) throws(SQLiteError) -> String {
        try required(optionalString(at: index), at: index, expected: "text")
    }

    /// `value`, or an error naming the column when it is nil (a NULL where the schema promised none).
    private func required<Value>(_ value: Value?, at index: Int32, expected: String) throws(SQLiteError) -> Value {
        guard let value else {
            let name = sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "#\(index)"
            throw SQLiteError(code: SQLITE_MISMATCH, message: "column \(name) of \"\(sql)\" is not \(expected)")
        }
        return value
    }
}

@available(*, unavailable, message: "a statement belongs to its connection's thread")
extension SQLiteStatement: Sendable {}

/// A Swift value that binds to an SQLite statement parameter.
protocol SQLiteBindable {
    /// Binds the value to parameter `index` of `statement`, returning SQLite's result code.
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

extension Int: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(self))
    }
}

extension Int64: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, self)
    }
}

extension Double: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_double(statement, index, self)
    }
}

extension String: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        // An explicit length keeps text with embedded NUL characters whole.
        guard let length = Int32(exactly: utf8.count) else { return SQLITE_TOOBIG }
        return withCString { podcast_sqlite3_bind_text_transient(statement, index, $0, length) }
    }
}

extension [UInt8]: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        // An empty buffer may have no address, and a NULL pointer would bind NULL instead of an empty blob.
        guard !isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
        guard let length = Int32(exactly: count) else { return SQLITE_TOOBIG }
        return withUnsafeBytes { podcast_sqlite3_bind_blob_transient(statement, index, $0.baseAddress, length) }
    }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .some(let value): value.bind(to: statement, at: index)
        case .none: sqlite3_bind_null(statement, index)
        }
    }
}
