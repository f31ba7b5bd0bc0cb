import CSQLite
import Glibc
import FoundationEssentials
import PodcastPlatform

/// The downloads table: one record per episode podcast was asked for, from its claim to its
/// finished file, which is what keeps two processes from fetching the same episode and lets a
/// later run continue or find it. The row helpers serve the other tables' types that read or
/// write download records inside their own transactions (`Batches`, `StopRequests`,
/// `DownloadActivity`, `LibraryFiles`).
public struct DownloadRecords {
    let store: StateStore

    /// What claiming a download found.
    enum Claim: Sendable, Equatable {
        /// The caller now owns the record (state `queued`); `previous` is what was stored
        /// before (the resume data of an earlier attempt), if anything.
        case claimed(previous: DownloadRecord?)
        /// The episode is already downloaded, at this path.
        case alreadyDownloaded(path: String)
        /// Another live process is downloading it.
        case busy(pid: Int32)
    }

    /// The record of the episode `key`, if there is one.
    public func record(_ key: EpisodeKey) throws(StoreError) -> DownloadRecord? {
        try store.read { () throws(SQLiteError) in try select(key) }
    }

    /// The records of `feed`'s episodes, by identity, with those podcast deleted as `deleted`.
    public func records(feed: String) throws(StoreError) -> [String: DownloadRecord] {
        try store.read { () throws(SQLiteError) in
            let query = try store.connection.prepare("SELECT \(Self.columns) FROM downloads WHERE feed = :feed")
            try query.bind(feed, named: ":feed")
            var records: [String: DownloadRecord] = [:]
            while try query.step() {
                let record = try Self.record(from: query)
                records[record.identity] = record
            }
            // Episodes podcast deleted, as records in the state `deleted`, unless downloaded again since.
            let deleted = try store.connection.prepare("SELECT identity, podcast_title, title, url FROM deleted_episodes WHERE feed = :feed")
            try deleted.bind(feed, named: ":feed")
            while try deleted.step() {
                let identity = try deleted.string(at: 0)
                guard records[identity] == nil else { continue }
                var record = DownloadRecord(
                    feed: feed, identity: identity, podcastTitle: try deleted.string(at: 1), title: try deleted.string(at: 2),
                    url: try deleted.string(at: 3), mediaType: nil, published: nil)
                record.state = .deleted
                records[identity] = record
            }
            return records
        }
    }

    /// Every record, most recently changed first.
    public func all() throws(StoreError) -> [DownloadRecord] {
        try store.read { () throws(SQLiteError) in
            let query = try store.connection.prepare("SELECT \(Self.columns) FROM downloads ORDER BY updated_at DESC")
            var records: [DownloadRecord] = []
            while try query.step() { records.append(try Self.record(from: query)) }
            return records
        }
    }

    /// Every partial file a record names: the ones some download may still continue.
    func partialPaths() throws(StoreError) -> Set<String> {
        try store.read { () throws(SQLiteError) in
            let query = try store.connection.prepare("SELECT partial_path FROM downloads WHERE partial_path IS NOT NULL")
            return Set(try query.rows { row throws(SQLiteError) in try row.string(at: 0) })
        }
    }

    /// Downloads that can be continued, oldest first: paused ones, ones whose process is gone,
    /// failed ones whose error a retry may fix, and ones whose state cannot be read (they start over).
    public func resumable() throws(StoreError) -> [DownloadRecord] {
        try store.read { () throws(SQLiteError) in
            let query = try store.connection.prepare("""
                SELECT \(Self.columns) FROM downloads
                WHERE state != 'downloaded' AND final_error = 0
                ORDER BY updated_at
                """)
            var records: [DownloadRecord] = []
            while try query.step() { records.append(try Self.record(from: query)) }
            return records.filter { record in
                switch record.state {
                case .queued, .downloading: !(record.owner?.isAlive ?? false)
                default: true
                }
            }
        }
    }

    /// The downloads that failed for good (404, a web page instead of media, a wrong digest
    /// twice), oldest first: `resume` leaves them, and says so.
    public func failedForGood() throws(StoreError) -> [DownloadRecord] {
        try store.read { () throws(SQLiteError) in
            let query = try store.connection.prepare("""
                SELECT \(Self.columns) FROM downloads WHERE state = 'failed' AND final_error = 1 ORDER BY updated_at
                """)
            var records: [DownloadRecord] = []
            while try query.step() { records.append(try Self.record(from: query)) }
            return records
        }
    }

    /// Takes each record's episode for `owner` (state `queued`), all in one transaction, unless it
    /// is already downloaded (and its file is still there; with `force`, it is taken all the same,
    /// to be fetched again) or a live process has it. A claimed episode keeps the path of the file
    /// it had (fetched again, or found damaged by `verify`): the new file replaces it only once it
    /// is complete and checked, and until then the old one stays podcast's.
    func claim(_ records: [DownloadRecord], for owner: ProcessOwner, force: Bool = false) throws(StoreError) -> [Claim] {
        try store.write { () throws(SQLiteError) -> [Claim] in
            var claims: [Claim] = []
            claims.reserveCapacity(records.count)
            for record in records {
                var claimed = record
                claimed.state = .queued
                claimed.owner = owner
                claimed.path = nil
                claimed.error = nil
                // Most episodes are new: adding the record first costs one statement, where looking
                // for it first cost two.
                if try insertIfNew(claimed) {
                    claims.append(.claimed(previous: nil))
                    continue
                }
                let existing = try select(record.key)
                if let existing {
                    if !force, existing.state == .downloaded, let path = existing.path, access(path, F_OK) == 0 {
                        claims.append(.alreadyDownloaded(path: path))
                        continue
                    }
                    if [.queued, .downloading].contains(existing.state), let other = existing.owner, other != owner, other.isAlive {
                        claims.append(.busy(pid: other.pid))
                        continue
                    }
                    // The resume data of the earlier attempt stays until this one replaces it.
                    claimed.adoptResumeData(of: existing)
                    claimed.path = existing.path
                    claimed.sha256 = existing.sha256
                    claimed.fileStamp = existing.fileStamp
                    if existing.state == .downloaded {
                        // A finished file is never continued: the new copy starts from byte 0.
                        claimed.bytes = 0
                        claimed.resume = ResumeRecord()
                        claimed.resume.partialPath = record.resume.partialPath
                    }
                }
                try upsert(claimed)
                claims.append(.claimed(previous: existing))
            }
            return claims
        }
    }

    /// Writes `record` over the stored one.
    public func save(_ record: DownloadRecord) throws(StoreError) {
        try store.writeAtomically { () throws(SQLiteError) in try upsert(record) }
    }

    /// Records that `record`'s episode is downloaded, its file at `record.path`: only what
    /// `DownloadRecord.completed(by:at:)` changes is written (an episode's finishing costs one
    /// small update, not a whole row); a record no longer stored is written whole. No other
    /// episode's record may name the path (`episode(owning:)`, in the same transaction): that
    /// fails with a constraint error.
    func saveCompleted(_ record: DownloadRecord) throws(StoreError) {
        // Atomic without a savepoint: the whole record is written only when the UPDATE changed nothing.
        try store.writeAtomically { () throws(SQLiteError) in
            let statement = try store.prepared("""
                UPDATE downloads SET
                    state = 'downloaded', path = ?3, partial_path = NULL, error = NULL, effective_url = ?4, etag = ?5,
                    last_modified = ?6, bytes = ?7, durable_bytes = ?7, total = ?7, failures = 0, final_error = 0,
                    speed = NULL, updated_at = ?8, sha256 = ?9, subscription = ?10, file_device = ?11, file_inode = ?12, file_changed = ?13
                WHERE feed = ?1 AND identity = ?2
                """)
            try statement.bind(record.feed, at: 1)
            try statement.bind(record.identity, at: 2)
            try statement.bind(record.path, at: 3)
            try statement.bind(record.effectiveURL, at: 4)
            try statement.bind(record.resume.etag, at: 5)
            try statement.bind(record.resume.lastModified, at: 6)
            try statement.bind(record.bytes, at: 7)
            try statement.bind(Date().timeIntervalSince1970, at: 8)
            try statement.bind(record.sha256, at: 9)
            try statement.bind(record.subscription, at: 10)
            try statement.bind(record.fileStamp.map { Int64(bitPattern: $0.device) }, at: 11)
            try statement.bind(record.fileStamp.map { Int64(bitPattern: $0.inode) }, at: 12)
            try statement.bind(record.fileStamp?.changed, at: 13)
            try statement.run()
            if store.connection.changes == 0 { try upsert(record) }
        }
    }

    /// Writes every record over the stored one, in one transaction.
    func save(_ records: [DownloadRecord]) throws(StoreError) {
        guard !records.isEmpty else { return }
        try store.write { () throws(SQLiteError) in
            for record in records { try upsert(record) }
        }
    }

    /// Records how far running downloads have got (for `status`), in one transaction; only the
    /// state, `bytes` and `speed` change, so the resume data is untouched.
    func recordProgress(_ progress: [(key: EpisodeKey, bytes: Int64, speed: Double)]) throws(StoreError) {
        guard !progress.isEmpty else { return }
        try store.write { () throws(SQLiteError) in
            for entry in progress {
                let statement = try store.prepared("""
                    UPDATE downloads SET state = 'downloading', bytes = :bytes, speed = :speed, updated_at = :now
                    WHERE feed = :feed AND identity = :identity AND state IN ('queued', 'downloading')
                    """)
                try statement.bind(entry.bytes, named: ":bytes")
                try statement.bind(entry.speed, named: ":speed")
                try statement.bind(Date().timeIntervalSince1970, named: ":now")
                try statement.bind(entry.key.feed, named: ":feed")
                try statement.bind(entry.key.identity, named: ":identity")
                try statement.run()
            }
        }
    }

    /// Marks the finished file of `key` damaged or missing (`podcast verify`): the record keeps the
    /// file's path, so the next `download` or `resume` fetches the episode again and replaces the
    /// file only with a complete, checked copy.
    func markDamaged(_ key: EpisodeKey, reason: String) throws(StoreError) {
        try store.writeAtomically { () throws(SQLiteError) in
            let statement = try store.prepared("""
                UPDATE downloads SET state = 'failed', error = ?3, final_error = 0, failures = 0, bytes = 0, durable_bytes = 0,
                    partial_path = NULL, owner_pid = NULL, updated_at = ?4, file_changed = ?5
                WHERE feed = ?1 AND identity = ?2 AND state = 'downloaded'
                """)
            try statement.bind(key.feed, at: 1)
            try statement.bind(key.identity, at: 2)
            try statement.bind(reason, at: 3)
            try statement.bind(Date().timeIntervalSince1970, at: 4)
            // Found damaged: its ctime no longer vouches for it, only its digest can (`FileOwnership`).
            try statement.bind(FileIO.Stamp.unknownChange, at: 5)
            try statement.run()
        }
    }

    /// The episode whose finished file is `path`, if any.
    public func episode(owning path: String) throws(StoreError) -> EpisodeKey? {
        try store.read { () throws(SQLiteError) in
            let query = try store.prepared("SELECT feed, identity FROM downloads WHERE path = :path")
            try query.bind(path, named: ":path")
            return try query.firstRow { row throws(SQLiteError) in EpisodeKey(feed: try row.string(at: 0), identity: try row.string(at: 1)) }
        }
    }

    /// Deletes the record of the episode `key` (a cancelled download).
    public func delete(_ key: EpisodeKey) throws(StoreError) {
        try store.write { () throws(SQLiteError) in try deleteRow(key) }
    }

    /// Makes the file of `key` no subscription's: the user changed it, so `keep` and `unsubscribe`
    /// stop counting it (it stays recorded, so `podcast delete` can still say why it leaves it).
    func releaseFromSubscription(_ key: EpisodeKey) throws(StoreError) {
        try store.writeAtomically { () throws(SQLiteError) in
            let statement = try store.prepared("UPDATE downloads SET subscription = NULL WHERE feed = ?1 AND identity = ?2")
            try statement.bind(key.feed, at: 1)
            try statement.bind(key.identity, at: 2)
            try statement.run()
        }
    }

    /// Forgets the download of `key` whose file `delete`, `keep` or `unsubscribe --delete-files`
    /// deleted, and remembers that it was deleted (`deleted_episodes`): listings do not offer it as new.
    public func forgetDeleted(_ key: EpisodeKey) throws(StoreError) {
        try store.writeAtomically { () throws(SQLiteError) in
            let remember = try store.connection.prepare("""
                INSERT OR REPLACE INTO deleted_episodes (feed, identity, podcast_title, title, url, deleted_at)
                SELECT feed, identity, podcast_title, title, url, :now FROM downloads
                WHERE feed = :feed AND identity = :identity AND state = 'downloaded'
                """)
            try remember.bind(key.feed, named: ":feed")
            try remember.bind(key.identity, named: ":identity")
            try remember.bind(Date().timeIntervalSince1970, named: ":now")
            try remember.run()
            let statement = try store.connection.prepare("DELETE FROM downloads WHERE feed = :feed AND identity = :identity AND state = 'downloaded'")
            try statement.bind(key.feed, named: ":feed")
            try statement.bind(key.identity, named: ":identity")
            try statement.run()
        }
    }

    // MARK: Rows, shared with the other types that read or write download records

    static let columns = """
        feed, identity, podcast_title, title, url, effective_url, media_type, published, state, bytes, total,
        etag, last_modified, partial_path, path, error, owner_pid, owner_boot, owner_start, guid, enclosure_length,
        durable_bytes, data_boot, failures, final_error, speed, integrity, sha256, library, subscription,
        file_device, file_inode, file_changed
        """

    /// How many columns `columns` names: a query that selects more after them reads those from here.
    static let columnCount = columns.split(separator: ",").count

    /// Made once: statements run per episode are looked up by their text, which is not built again each time.
    private static let selectSQL = "SELECT \(columns) FROM downloads WHERE feed = :feed AND identity = :identity"

    func select(_ key: EpisodeKey) throws(SQLiteError) -> DownloadRecord? {
        let query = try store.prepared(Self.selectSQL)
        try query.bind(key.feed, named: ":feed")
        try query.bind(key.identity, named: ":identity")
        return try query.firstRow { row throws(SQLiteError) in try Self.record(from: row) }
    }

    static func record(from row: SQLiteStatement) throws(SQLiteError) -> DownloadRecord {
        var record = DownloadRecord(
            feed: try row.string(at: 0), identity: try row.string(at: 1), podcastTitle: try row.string(at: 2),
            title: try row.string(at: 3), url: try row.string(at: 4), mediaType: row.optionalString(at: 6),
            published: row.optionalDouble(at: 7).map { Date(timeIntervalSince1970: $0) })
        record.effectiveURL = row.optionalString(at: 5)
        // An unreadable state means "start that episode over", never "stuck".
        record.state = DownloadRecord.State(rawValue: try row.string(at: 8)) ?? .failed
        record.bytes = row.optionalInt64(at: 9) ?? 0
        record.resume.total = row.optionalInt64(at: 10)
        record.resume.etag = row.optionalString(at: 11)
        record.resume.lastModified = row.optionalString(at: 12)
        record.resume.partialPath = row.optionalString(at: 13)
        record.path = row.optionalString(at: 14)
        record.error = row.optionalString(at: 15)
        if let pid = row.optionalInt(at: 16), let boot = row.optionalString(at: 17) {
            record.owner = ProcessOwner(pid: Int32(truncatingIfNeeded: pid), boot: boot, started: row.optionalInt64(at: 18))
        }
        record.guid = row.optionalString(at: 19)
        record.enclosureLength = row.optionalInt64(at: 20)
        record.resume.durableBytes = max(0, row.optionalInt64(at: 21) ?? 0)
        record.resume.dataBoot = row.optionalString(at: 22)
        record.failures = max(0, row.optionalInt(at: 23) ?? 0)
        record.finalError = (row.optionalInt(at: 24) ?? 0) != 0
        record.speed = row.optionalDouble(at: 25)
        record.integrity = row.optionalString(at: 26).flatMap(Integrity.init(stored:))
        record.sha256 = row.optionalString(at: 27)
        if let library = row.optionalString(at: 28) {
            do throws(StoredSettingsError) { record.library = try LibrarySettings(stored: library) } catch {
                throw SQLiteError.unreadable("the download record of \"\(record.title)\"", error)
            }
        }
        record.subscription = row.optionalInt(at: 29)
        record.fileStamp = Self.fileStamp(device: row.optionalInt64(at: 30), inode: row.optionalInt64(at: 31), changed: row.optionalInt64(at: 32))
        return record
    }

    private static let values = """
        (\(columns), updated_at) VALUES (
            ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,
            ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34)
        """
    private static let upsertSQL = "INSERT OR REPLACE INTO downloads " + values
    private static let insertNewSQL = "INSERT INTO downloads " + values + " ON CONFLICT (feed, identity) DO NOTHING"

    /// Writes `record` over the stored one, and over any other naming the same path.
    func upsert(_ record: DownloadRecord) throws(SQLiteError) {
        try execute(Self.upsertSQL, binding: record)
    }

    /// Adds `record` unless its episode has a record already; true when it was added. Cheaper than
    /// `upsert`, which must be ready to replace rows.
    private func insertIfNew(_ record: DownloadRecord) throws(SQLiteError) -> Bool {
        try execute(Self.insertNewSQL, binding: record)
        return store.connection.changes == 1
    }

    /// Runs `sql`, an INSERT of `values`, with `record`'s fields.
    private func execute(_ sql: String, binding record: DownloadRecord) throws(SQLiteError) {
        // Bound by position, in the order of `columns` then updated_at: it runs for every
        // episode, and a name costs a lookup per bind.
        let statement = try store.prepared(sql)
        try statement.bind(record.feed, at: 1)
        try statement.bind(record.identity, at: 2)
        try statement.bind(record.podcastTitle, at: 3)
        try statement.bind(record.title, at: 4)
        try statement.bind(record.url, at: 5)
        try statement.bind(record.effectiveURL, at: 6)
        try statement.bind(record.mediaType, at: 7)
        try statement.bind(record.published?.timeIntervalSince1970, at: 8)
        try statement.bind(record.state.rawValue, at: 9)
        try statement.bind(record.bytes, at: 10)
        try statement.bind(record.resume.total, at: 11)
        try statement.bind(record.resume.etag, at: 12)
        try statement.bind(record.resume.lastModified, at: 13)
        try statement.bind(record.resume.partialPath, at: 14)
        try statement.bind(record.path, at: 15)
        try statement.bind(record.error, at: 16)
        try statement.bind(record.owner.map { Int($0.pid) }, at: 17)
        try statement.bind(record.owner?.boot, at: 18)
        try statement.bind(record.owner?.started, at: 19)
        try statement.bind(record.guid, at: 20)
        try statement.bind(record.enclosureLength, at: 21)
        try statement.bind(record.resume.durableBytes, at: 22)
        try statement.bind(record.resume.dataBoot, at: 23)
        try statement.bind(record.failures, at: 24)
        try statement.bind(record.finalError ? 1 : 0, at: 25)
        try statement.bind(record.speed, at: 26)
        try statement.bind(record.integrity?.stored, at: 27)
        try statement.bind(record.sha256, at: 28)
        try statement.bind(record.library?.stored, at: 29)
        try statement.bind(record.subscription, at: 30)
        try statement.bind(record.fileStamp.map { Int64(bitPattern: $0.device) }, at: 31)
        try statement.bind(record.fileStamp.map { Int64(bitPattern: $0.inode) }, at: 32)
        try statement.bind(record.fileStamp?.changed, at: 33)
        try statement.bind(Date().timeIntervalSince1970, at: 34)
        try statement.run()
    }

    func deleteRow(_ key: EpisodeKey) throws(SQLiteError) {
        let statement = try store.prepared("DELETE FROM downloads WHERE feed = :feed AND identity = :identity")
        try statement.bind(key.feed, named: ":feed")
        try statement.bind(key.identity, named: ":identity")
        try statement.run()
    }

    /// A file's stamp as three columns keep it; nil unless all are there.
    static func fileStamp(device: Int64?, inode: Int64?, changed: Int64?) -> FileIO.Stamp? {
        guard let device, let inode, let changed else { return nil }
        return FileIO.Stamp(device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), changed: changed)
    }
}

extension Integrity {
    /// How the store keeps it: the type, a space, the value.
    var stored: String { type + " " + value }

    /// Reads what `stored` wrote; nil for anything else.
    init?(stored: String) {
        let parts = stored.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        self.init(type: String(parts[0]), value: String(parts[1]))
    }
}
