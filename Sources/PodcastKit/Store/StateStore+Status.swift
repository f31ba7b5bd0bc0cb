import FoundationEssentials

extension StateStore {
    /// What `status` shows: every download not finished, and those finished since `since`, in a
    /// stable order (by podcast, newest episode first) so a redrawn display does not reshuffle.
    public func progressBuffer(finishedSince since: Date) throws(StoreError) -> [DownloadRecord] {
        try read { () throws(SQLiteError) -> [DownloadRecord] in
            let query = try connection.prepare("""
                SELECT \(Self.downloadColumns) FROM downloads
                WHERE state != 'downloaded' OR updated_at >= :since
                ORDER BY podcast_title, published DESC, title, identity
                """)
            try query.bind(since.timeIntervalSince1970, named: ":since")
            return try query.rows { row throws(SQLiteError) in try Self.downloadRecord(from: row) }
        }
    }
}
