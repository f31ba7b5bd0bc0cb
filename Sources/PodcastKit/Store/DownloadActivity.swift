import FoundationEssentials

/// The downloads as `status` and `history` look at them: each record with when it last changed.
public struct DownloadActivity {
    let store: StateStore

    /// What `status` shows: every download not finished, in a stable order (by podcast, newest
    /// episode first) so a redrawn display does not reshuffle, each with when it last changed.
    public func unfinished() throws(StoreError) -> [(record: DownloadRecord, updated: Date)] {
        try store.read { () throws(SQLiteError) -> [(record: DownloadRecord, updated: Date)] in
            let query = try store.connection.prepare("""
                SELECT \(DownloadRecords.columns), updated_at FROM downloads
                WHERE state != 'downloaded'
                ORDER BY podcast_title, published DESC, title, identity
                """)
            return try query.rows { row throws(SQLiteError) in try Self.timedRecord(from: row) }
        }
    }

    /// Finished downloads, the most recently finished first: those finished at `since` or later
    /// (nil: ever), at most `limit` of them (nil: all).
    public func finished(since: Date?, limit: Int?) throws(StoreError) -> [(record: DownloadRecord, updated: Date)] {
        try store.read { () throws(SQLiteError) -> [(record: DownloadRecord, updated: Date)] in
            let query = try store.connection.prepare("""
                SELECT \(DownloadRecords.columns), updated_at FROM downloads
                WHERE state = 'downloaded' AND updated_at >= :since
                ORDER BY updated_at DESC, podcast_title, title LIMIT :limit
                """)
            try query.bind(since?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude, named: ":since")
            try query.bind(limit ?? -1, named: ":limit")
            return try query.rows { row throws(SQLiteError) in try Self.timedRecord(from: row) }
        }
    }

    /// How many downloads finished at `since` or later.
    public func finishedCount(since: Date) throws(StoreError) -> Int {
        try store.read { () throws(SQLiteError) -> Int in
            let query = try store.connection.prepare("SELECT count(*) FROM downloads WHERE state = 'downloaded' AND updated_at >= :since")
            try query.bind(since.timeIntervalSince1970, named: ":since")
            return try query.firstRow { row throws(SQLiteError) in try row.int(at: 0) } ?? 0
        }
    }

    private static func timedRecord(from row: SQLiteStatement) throws(SQLiteError) -> (record: DownloadRecord, updated: Date) {
        // updated_at follows the record's columns.
        (try DownloadRecords.record(from: row), Date(timeIntervalSince1970: row.optionalDouble(at: Int32(DownloadRecords.columnCount)) ?? 0))
    }
}
