import CSQLite

extension StateStore {
    /// Records `file` as podcast's own (replacing the record of the same path).
    public func saveLibraryFile(_ file: LibraryFile) throws(StoreError) {
        try writeAtomically { () throws(SQLiteError) in
            let statement = try prepared("""
                INSERT OR REPLACE INTO library_files (path, feed, identity, kind, bytes, sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """)
            try statement.bind(file.path, at: 1)
            try statement.bind(file.feed, at: 2)
            try statement.bind(file.identity, at: 3)
            try statement.bind(file.kind.rawValue, at: 4)
            try statement.bind(file.bytes, at: 5)
            try statement.bind(file.sha256, at: 6)
            try statement.run()
        }
    }

    /// Forgets the file at `path` (deleted, or found gone).
    public func forgetLibraryFile(path: String) throws(StoreError) {
        try writeAtomically { () throws(SQLiteError) in
            let statement = try prepared("DELETE FROM library_files WHERE path = ?1")
            try statement.bind(path, at: 1)
            try statement.run()
        }
    }

    /// The record of the file at `path`, if podcast wrote it. Asked for every episode a batch
    /// places, so its statement is compiled once.
    public func libraryFileOwner(path: String) throws(StoreError) -> LibraryFile? {
        try read { () throws(SQLiteError) in
            let query = try prepared("SELECT path, feed, identity, kind, bytes, sha256 FROM library_files WHERE path = ?1")
            try query.bind(path, at: 1)
            return try query.firstRow(Self.libraryFile)
        }
    }

    /// The companion files of the episode `key`.
    public func libraryFiles(of key: EpisodeKey) throws(StoreError) -> [LibraryFile] {
        try read { () throws(SQLiteError) in
            let query = try prepared("""
                SELECT path, feed, identity, kind, bytes, sha256 FROM library_files WHERE feed = ?1 AND identity = ?2 ORDER BY path
                """)
            try query.bind(key.feed, at: 1)
            try query.bind(key.identity, at: 2)
            return try query.rows(Self.libraryFile)
        }
    }

    /// The files of the feed `feed` that belong to no episode: its covers and playlists.
    public func podcastFiles(of feed: String) throws(StoreError) -> [LibraryFile] {
        try read { () throws(SQLiteError) in
            try selectLibraryFiles("WHERE feed = :value AND identity IS NULL", value: feed)
        }
    }

    /// Every file podcast wrote beside episodes and into podcast folders.
    public func libraryFiles() throws(StoreError) -> [LibraryFile] {
        try read { () throws(SQLiteError) in try selectLibraryFiles("WHERE :value IS NOT NULL", value: "all") }
    }

    private func selectLibraryFiles(_ condition: String, value: String) throws(SQLiteError) -> [LibraryFile] {
        let query = try connection.prepare("SELECT path, feed, identity, kind, bytes, sha256 FROM library_files \(condition) ORDER BY path")
        try query.bind(value, named: ":value")
        return try query.rows(Self.libraryFile)
    }

    private static func libraryFile(from row: SQLiteStatement) throws(SQLiteError) -> LibraryFile {
        let kind = try row.string(at: 3)
        guard let known = LibraryFile.Kind(rawValue: kind) else {
            throw SQLiteError(code: SQLITE_CORRUPT, message: "unknown library file kind '\(kind)'")
        }
        return LibraryFile(
            path: try row.string(at: 0), feed: try row.string(at: 1), identity: row.optionalString(at: 2), kind: known,
            bytes: row.optionalInt64(at: 4) ?? 0, sha256: row.optionalString(at: 5))
    }
}
