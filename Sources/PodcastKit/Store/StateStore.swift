import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PodcastPlatform

/// podcast's state (the last search, the current listing) in one SQLite file shared by every podcast process.
///
/// Each process or thread opens its own store: the object wraps a single-threaded SQLite handle
/// and is not `Sendable`. Processes coordinate through SQLite's locks in WAL mode, so a reader
/// never waits for a writer and never sees half of a replacement.
public final class StateStore {
    /// The database file.
    public let path: String
    let connection: SQLiteConnection
    /// Statements run once per episode, compiled once per store (see `prepared`).
    private var preparedStatements: [String: SQLiteStatement] = [:]

    /// How long a call waits for another process's lock before reporting `StoreError.Kind.busy`.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Opens the store in `paths.home`, creating that directory (owner-only) and the database as needed.
    public static func open(paths: PodcastPaths) throws(StoreError) -> StateStore {
        try createDirectory(paths.home)
        return try StateStore(path: paths.database)
    }

    /// Opens the database at `path`, creating it if missing and bringing its schema up to date.
    public init(path: String) throws(StoreError) {
        self.path = path
        // Made owner-only before SQLite creates it (its log files take the same mode): the store
        // keeps private feeds' addresses, credentials included. A failure here is SQLite's to report.
        let created = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if created >= 0 { close(created) }
        do {
            connection = try SQLiteConnection(path: path)
            // Before anything that takes a lock: a concurrent writer must mean a wait, never an error.
            try connection.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
            try Self.enableWriteAheadLog(on: connection)
            // WAL commits are atomic without an fsync per transaction; NORMAL loses at most the last
            // commits on power loss, never consistency, and nothing on a crash of podcast itself.
            try connection.execute("PRAGMA synchronous = NORMAL")
            try connection.execute("PRAGMA foreign_keys = ON")
            // 512 KiB of page cache (the default is 2 MiB): the store is small and read mostly once.
            try connection.execute("PRAGMA cache_size = -512")
        } catch {
            throw StoreError(error, path: path)
        }
        try migrate()
    }

    /// The schema version recorded in the file (`PRAGMA user_version`).
    public func schemaVersion() throws(StoreError) -> Int {
        try sqlite { () throws(SQLiteError) in try userVersion() }
    }

    /// Runs `body` in one write transaction: its changes are all kept if it returns, all undone if it throws.
    ///
    /// Takes the write lock at the start (`BEGIN IMMEDIATE`), so a concurrent writer waits for it instead
    /// of failing at commit. Called inside another transaction it becomes a savepoint of that one.
    /// Errors from `body` are rethrown as they are; failures of the store itself are `StoreError`s.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        do {
            return try inTransaction(.write, body)
        } catch {
            switch error {
            case .body(let error): throw error
            case .store(let error): throw StoreError(error, path: path)
            }
        }
    }

    /// `sql` compiled once and kept: for statements a batch runs for each of thousands of episodes.
    func prepared(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = preparedStatements[sql] {
            statement.resetForReuse()
            return statement
        }
        let statement = try connection.prepare(sql, persistent: true)
        preparedStatements[sql] = statement
        return statement
    }

    // MARK: Transactions for the store's own statements

    /// Runs `body` in a write transaction (see `transaction(_:)`).
    func write<T>(_ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        try storeTransaction(.write, body)
    }

    /// Runs `body`, whose changes are all-or-nothing by themselves, in a write transaction, or
    /// inside the open one without a savepoint of its own. For bodies of one statement (SQLite
    /// undoes a failed statement's changes), or of statements where each earlier one changed
    /// nothing: a batch recording thousands of episodes in one transaction pays for no savepoints.
    func writeAtomically<T>(_ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        try storeTransaction(.atomicWrite, body)
    }

    /// Runs `body` in a read transaction, so all of its statements see the same snapshot of the file.
    func read<T>(_ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        try storeTransaction(.read, body)
    }

    private func storeTransaction<T>(
        _ mode: TransactionMode, _ body: () throws(SQLiteError) -> T
    ) throws(StoreError) -> T {
        do {
            return try inTransaction(mode, body)
        } catch {
            switch error {
            case .body(let error), .store(let error): throw StoreError(error, path: path)
            }
        }
    }

    /// Runs `body` outside any transaction of ours, turning SQLite errors into store errors.
    func sqlite<T>(_ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError(error, path: path)
        }
    }

    enum TransactionMode {
        /// `BEGIN IMMEDIATE`: takes the write lock at once.
        case write
        /// Like `write`, but nested in an open transaction it takes no savepoint (see `writeAtomically`).
        case atomicWrite
        /// `BEGIN`: the snapshot is fixed by the first read and held until the end.
        case read
    }

    /// Why a transaction failed: its body threw, or SQLite did.
    enum TransactionFailure<BodyError: Error>: Error {
        case body(BodyError)
        case store(SQLiteError)
    }

    private func inTransaction<T, BodyError: Error>(
        _ mode: TransactionMode, _ body: () throws(BodyError) -> T
    ) throws(TransactionFailure<BodyError>) -> T {
        // Nested calls (a domain call inside `transaction`) become savepoints of the outer
        // transaction; a nested read needs none, as it changes nothing that could be rolled back,
        // nor does a nested atomic write, as it cannot fail halfway.
        let outermost = connection.isAutocommit
        if !outermost && mode != .write {
            do {
                return try body()
            } catch {
                throw .body(error)
            }
        }
        do {
            if outermost {
                try control(mode == .read ? "BEGIN" : "BEGIN IMMEDIATE")
            } else {
                try control("SAVEPOINT nested")
            }
        } catch {
            throw .store(error)
        }

        let value: T
        do {
            value = try body()
        } catch {
            do {
                try rollBack(outermost: outermost)
            } catch let rollbackError {
                // The connection is left in an unknown state, which matters more than why the body failed.
                throw .store(rollbackError)
            }
            throw .body(error)
        }

        do {
            try control(outermost ? "COMMIT" : "RELEASE nested")
        } catch {
            // A failed rollback here says less than the failed commit that caused it.
            try? rollBack(outermost: outermost)
            throw .store(error)
        }
        return value
    }

    private func rollBack(outermost: Bool) throws(SQLiteError) {
        if outermost {
            // SQLite ends the transaction itself after some errors (a full disk, an I/O error);
            // a second ROLLBACK would then fail with "no transaction is active".
            if !connection.isAutocommit {
                try control("ROLLBACK")
            }
        } else {
            try control("ROLLBACK TO nested")
            try control("RELEASE nested")
        }
    }

    /// Runs a transaction control statement, compiled once: a batch begins and ends thousands.
    private func control(_ sql: String) throws(SQLiteError) {
        try prepared(sql).run()
    }

    // MARK: Opening

    /// How many times a brand-new file's switch to WAL is retried when another process holds a lock.
    private static let walSwitchAttempts = 50

    private static func enableWriteAheadLog(on connection: SQLiteConnection) throws(SQLiteError) {
        // Switching a new file to WAL needs an exclusive lock. When two processes create the file at
        // once, SQLite reports BUSY at once, without waiting, to one of them to avoid a deadlock.
        var attempt = 1
        while true {
            do {
                let statement = try connection.prepare("PRAGMA journal_mode = WAL")
                // The pragma answers with the mode now in force. A file system without shared memory
                // keeps the old mode: the store still works then, with readers waiting for writers.
                _ = try statement.firstRow { row throws(SQLiteError) in try row.string(at: 0) }
                return
            } catch where error.primaryCode == SQLITE_BUSY && attempt < walSwitchAttempts {
                attempt += 1
                sqlite3_sleep(20)
            }
        }
    }

    private static func createDirectory(_ directory: String) throws(StoreError) {
        // Like `mkdir -p`, each missing component owner-only: the store names what the user listens to.
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw StoreError(.cannotCreateDirectory(.last("mkdir", path: prefix)), path: directory)
            }
            prefix += "/"
        }
    }
}

// MARK: The tables, each a type of its own holding the store

extension StateStore {
    /// The download record of each episode podcast was asked for.
    public var downloads: DownloadRecords { DownloadRecords(store: self) }

    /// The subscriptions, with the episodes their fetches have shown.
    public var subscriptions: Subscriptions { Subscriptions(store: self) }

    /// The placements table: finished files on their way to their names.
    var placements: Placements { Placements(store: self) }

    /// Every address of every subscription, current and earlier.
    var subscriptionAddresses: SubscriptionAddresses { SubscriptionAddresses(store: self) }

    /// The stop requests `pause` and `cancel` address to the processes running downloads.
    public var stopRequests: StopRequests { StopRequests(store: self) }

    /// The last search and its results.
    public var lastSearch: LastSearch { LastSearch(store: self) }

    /// The downloads with when each last changed, as `status` and `history` show them.
    public var downloadActivity: DownloadActivity { DownloadActivity(store: self) }

    /// The validators and body files of the feeds fetched before.
    public var feedCache: FeedCacheEntries { FeedCacheEntries(store: self) }

    /// The files podcast wrote beside episodes and into podcast folders.
    public var libraryFiles: LibraryFiles { LibraryFiles(store: self) }

    /// The updates queued for the background worker.
    public var updateRequests: UpdateRequests { UpdateRequests(store: self) }

    /// The downloads queued for the background worker, batch by batch.
    public var batches: Batches { Batches(store: self) }

    /// The numbered listing later commands' numbers refer to.
    public var currentListing: CurrentListing { CurrentListing(store: self) }

    /// The episodes podcast deleted the files of.
    public var deletedEpisodes: DeletedEpisodes { DeletedEpisodes(store: self) }
}

@available(*, unavailable, message: "a StateStore wraps a single-threaded SQLite handle; open one per thread")
extension StateStore: Sendable {}
