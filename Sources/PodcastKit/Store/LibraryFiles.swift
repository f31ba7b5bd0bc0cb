import CSQLite

/// The library files table (`library_files`): the files podcast wrote beside episodes and into
/// podcast folders, and what the store says of any file podcast wrote.
public struct LibraryFiles {
    let store: StateStore

    /// Records `file` as podcast's own (replacing the record of the same path).
    public func save(_ file: LibraryFile) throws(StoreError) {
        try store.writeAtomically { () throws(SQLiteError) in
            let statement = try store.prepared("""
                INSERT OR REPLACE INTO library_files (path, feed, identity, kind, bytes, sha256, subscription, file_device, file_inode, file_changed)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                """)
            try statement.bind(file.path, at: 1)
            try statement.bind(file.feed, at: 2)
            try statement.bind(file.identity, at: 3)
            try statement.bind(file.kind.rawValue, at: 4)
            try statement.bind(file.bytes, at: 5)
            try statement.bind(file.sha256, at: 6)
            try statement.bind(file.subscription, at: 7)
            try statement.bind(file.fileStamp.map { Int64(bitPattern: $0.device) }, at: 8)
            try statement.bind(file.fileStamp.map { Int64(bitPattern: $0.inode) }, at: 9)
            try statement.bind(file.fileStamp?.changed, at: 10)
            try statement.run()
        }
    }

    /// Forgets the file at `path` (deleted, or found gone).
    public func forget(path: String) throws(StoreError) {
        try store.writeAtomically { () throws(SQLiteError) in
            let statement = try store.prepared("DELETE FROM library_files WHERE path = ?1")
            try statement.bind(path, at: 1)
            try statement.run()
        }
    }

    /// The companion files of the episode `key`.
    public func files(of key: EpisodeKey) throws(StoreError) -> [LibraryFile] {
        try store.read { () throws(SQLiteError) in
            let query = try store.prepared("""
                SELECT path, feed, identity, kind, bytes, sha256, subscription, file_device, file_inode, file_changed FROM library_files WHERE feed = ?1 AND identity = ?2 ORDER BY path
                """)
            try query.bind(key.feed, at: 1)
            try query.bind(key.identity, at: 2)
            return try query.rows(Self.libraryFile)
        }
    }

    /// The files of the feed `feed` that belong to no episode: its covers and playlists.
    public func podcastFiles(of feed: String) throws(StoreError) -> [LibraryFile] {
        try store.read { () throws(SQLiteError) in
            try selectLibraryFiles("WHERE feed = :value AND identity IS NULL", value: feed)
        }
    }

    /// Every file podcast wrote beside episodes and into podcast folders.
    public func all() throws(StoreError) -> [LibraryFile] {
        try store.read { () throws(SQLiteError) in try selectLibraryFiles("WHERE :value IS NOT NULL", value: "all") }
    }

    private func selectLibraryFiles(_ condition: String, value: String) throws(SQLiteError) -> [LibraryFile] {
        let query = try store.connection.prepare("SELECT path, feed, identity, kind, bytes, sha256, subscription, file_device, file_inode, file_changed FROM library_files \(condition) ORDER BY path")
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
            bytes: row.optionalInt64(at: 4) ?? 0, sha256: row.optionalString(at: 5), subscription: row.optionalInt(at: 6),
            fileStamp: DownloadRecords.fileStamp(device: row.optionalInt64(at: 7), inode: row.optionalInt64(at: 8), changed: row.optionalInt64(at: 9)))
    }

    /// What the store says of the file at `path`, if podcast wrote it: an episode's media file, an
    /// episode's companion (whose subscription is its media file's), or a podcast's own file.
    /// `FileOwnership` decides with it.
    public func recordedFile(path: String) throws(StoreError) -> RecordedFile? {
        try store.read { () throws(SQLiteError) -> RecordedFile? in
            let media = try store.prepared("SELECT feed, identity, state, bytes, sha256, subscription, file_device, file_inode, file_changed FROM downloads WHERE path = ?1")
            try media.bind(path, at: 1)
            if let file = try media.firstRow({ row throws(SQLiteError) -> RecordedFile in
                let key = EpisodeKey(feed: try row.string(at: 0), identity: try row.string(at: 1))
                // Only a finished record's bytes are its file's: a claimed one counts the new copy's.
                let finished = try row.string(at: 2) == DownloadRecord.State.downloaded.rawValue
                return RecordedFile(
                    path: path, role: .media(key), bytes: finished ? row.optionalInt64(at: 3) : nil, sha256: row.optionalString(at: 4),
                    subscription: row.optionalInt(at: 5),
                    stamp: DownloadRecords.fileStamp(device: row.optionalInt64(at: 6), inode: row.optionalInt64(at: 7), changed: row.optionalInt64(at: 8)))
            }) {
                return file
            }
            let other = try store.prepared("""
                SELECT l.feed, l.identity, l.kind, l.bytes, l.sha256,
                    CASE WHEN l.identity IS NULL THEN l.subscription ELSE d.subscription END, l.file_device, l.file_inode, l.file_changed
                FROM library_files AS l LEFT JOIN downloads AS d ON d.feed = l.feed AND d.identity = l.identity
                WHERE l.path = ?1
                """)
            try other.bind(path, at: 1)
            return try other.firstRow { row throws(SQLiteError) -> RecordedFile in
                let kind = try row.string(at: 2)
                guard let known = LibraryFile.Kind(rawValue: kind) else {
                    throw SQLiteError(code: SQLITE_CORRUPT, message: "unknown library file kind '\(kind)'")
                }
                let feed = try row.string(at: 0)
                let role: RecordedFile.Role = row.optionalString(at: 1).map { .companion(EpisodeKey(feed: feed, identity: $0), known) }
                    ?? .podcastFile(feed: feed, known)
                return RecordedFile(
                    path: path, role: role, bytes: try row.int64(at: 3), sha256: row.optionalString(at: 4), subscription: row.optionalInt(at: 5),
                    stamp: DownloadRecords.fileStamp(device: row.optionalInt64(at: 6), inode: row.optionalInt64(at: 7), changed: row.optionalInt64(at: 8)))
            }
        }
    }

    /// True when an episode other than `excluded` has its media file at `stem` plus one extension
    /// (`stem.mp3` for the stem of `stem.m4a`): its companions would have the same names.
    public func hasMediaFile(stem: String, excluding excluded: EpisodeKey) throws(StoreError) -> Bool {
        try store.read { () throws(SQLiteError) -> Bool in
            // Every path that starts with "stem.", as a range ('/' follows '.'), then checked for one extension.
            let query = try store.prepared("SELECT path, feed, identity FROM downloads WHERE path >= ?1 AND path < ?2")
            try query.bind(stem + ".", at: 1)
            try query.bind(stem + "/", at: 2)
            let found = try query.rows { row throws(SQLiteError) in
                (path: try row.string(at: 0), key: EpisodeKey(feed: try row.string(at: 1), identity: try row.string(at: 2)))
            }
            return found.contains { entry in
                entry.key != excluded && !entry.path.dropFirst(stem.count + 1).contains { $0 == "." || $0 == "/" }
            }
        }
    }
}
