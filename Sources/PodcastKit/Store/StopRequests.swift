import CSQLite
import PodcastPlatform

/// What `podcast pause` and `podcast cancel` ask of a download.
public enum StopRequest: String, Sendable, Equatable {
    /// Stop it, keeping its resume data (state `paused`).
    case pause
    /// Stop it and drop it: its partial data and its record go.
    case cancel
}

/// A stop request addressed to the process that runs a download.
public struct AddressedStopRequest: Sendable, Equatable {
    /// The download's feed key.
    public var feed: String
    /// The episode's identity.
    public var identity: String
    /// What is asked.
    public var request: StopRequest
    /// The process asked.
    public var owner: ProcessOwner
}

/// What a stop did at once, and what it left to the processes running the downloads.
public struct StopOutcome: Sendable, Equatable {
    /// Downloads a live process runs: that process was asked to stop them.
    public var asked: [DownloadRecord] = []
    /// Downloads no live process runs, stopped in the store: paused, or (cancel) deleted; their
    /// partial files are the caller's to delete.
    public var stopped: [DownloadRecord] = []
    /// Of `asked`, the downloads still running when the caller stopped waiting.
    public var unanswered: [DownloadRecord] = []
    /// Of `asked`, the downloads that finished before their process got to the request: kept,
    /// since the file is whole.
    public var finishedFirst: [DownloadRecord] = []
    /// Episodes named by key whose downloads the request does not apply to (a paused one asked
    /// to pause, a finished one asked to cancel), as they are: the caller says what is true of them.
    public var notStopped: [DownloadRecord] = []
    /// Episodes named by key that have no download at all.
    public var neverDownloaded: [EpisodeKey] = []
}

/// The stop requests table (`download_requests`): what `pause` and `cancel` ask of the processes
/// running downloads, until those take it.
public struct StopRequests {
    let store: StateStore

    /// Stops downloads in one transaction. `pause` takes queued and running ones; `cancel` takes
    /// every unfinished one. `keys` limits it to those episodes (nil: all). A download that a live
    /// process runs gets a request addressed to that process, which stops it at its next progress
    /// poll; any other is paused (resume data kept, no owner) or deleted here.
    public func request(_ request: StopRequest, of keys: [EpisodeKey]?) throws(StoreError) -> StopOutcome {
        try store.write { () throws(SQLiteError) -> StopOutcome in
            // Requests whose addressee died unanswered would only confuse the next look at them.
            for stale in try selectStopRequests() where !stale.owner.isAlive {
                try deleteStopRequest(stale.key)
            }
            let stoppable: Set<DownloadRecord.State> = request == .pause ? [.queued, .downloading] : [.queued, .downloading, .paused, .failed]
            var records: [DownloadRecord] = []
            var outcome = StopOutcome()
            if let keys {
                for key in keys {
                    guard let record = try store.downloads.select(key) else {
                        outcome.neverDownloaded.append(key)
                        continue
                    }
                    if stoppable.contains(record.state) { records.append(record) } else { outcome.notStopped.append(record) }
                }
            } else {
                let query = try store.connection.prepare("SELECT \(DownloadRecords.columns) FROM downloads WHERE state != 'downloaded'")
                records = try query.rows { row throws(SQLiteError) in try DownloadRecords.record(from: row) }
            }
            for var record in records where stoppable.contains(record.state) {
                if [.queued, .downloading].contains(record.state), let owner = record.owner, owner.isAlive {
                    try address(request, to: owner, key: record.key)
                    outcome.asked.append(record)
                } else {
                    switch request {
                    case .pause:
                        record.state = .paused
                        record.owner = nil
                        record.speed = nil
                        record.error = "paused"
                        try store.downloads.upsert(record)
                    case .cancel:
                        try store.downloads.deleteRow(record.key)
                    }
                    outcome.stopped.append(record)
                }
            }
            return outcome
        }
    }

    /// Takes (reads and deletes) the stop requests addressed to `owner`.
    public func take(for owner: ProcessOwner) throws(StoreError) -> [AddressedStopRequest] {
        try store.write { () throws(SQLiteError) -> [AddressedStopRequest] in
            let query = try store.prepared("""
                DELETE FROM download_requests WHERE owner_pid = :pid AND owner_boot = :boot
                RETURNING feed, identity, request, owner_start
                """)
            try query.bind(Int(owner.pid), named: ":pid")
            try query.bind(owner.boot, named: ":boot")
            return try query.rows { row throws(SQLiteError) in
                AddressedStopRequest(
                    feed: try row.string(at: 0), identity: try row.string(at: 1),
                    request: StopRequest(rawValue: try row.string(at: 2)) ?? .pause,
                    owner: ProcessOwner(pid: owner.pid, boot: owner.boot, started: row.optionalInt64(at: 3)))
            }
        }
    }

    /// The stop requests not yet taken by the processes they are addressed to.
    public func pending() throws(StoreError) -> [AddressedStopRequest] {
        try store.read { () throws(SQLiteError) in try selectStopRequests() }
    }

    private func selectStopRequests() throws(SQLiteError) -> [AddressedStopRequest] {
        let query = try store.connection.prepare("SELECT feed, identity, request, owner_pid, owner_boot, owner_start FROM download_requests")
        return try query.rows { row throws(SQLiteError) in
            AddressedStopRequest(
                feed: try row.string(at: 0), identity: try row.string(at: 1),
                request: StopRequest(rawValue: try row.string(at: 2)) ?? .pause,
                owner: ProcessOwner(pid: Int32(truncatingIfNeeded: try row.int(at: 3)), boot: try row.string(at: 4), started: row.optionalInt64(at: 5)))
        }
    }

    private func deleteStopRequest(_ key: EpisodeKey) throws(SQLiteError) {
        let statement = try store.prepared("DELETE FROM download_requests WHERE feed = :feed AND identity = :identity")
        try statement.bind(key.feed, named: ":feed")
        try statement.bind(key.identity, named: ":identity")
        try statement.run()
    }

    private func address(_ request: StopRequest, to owner: ProcessOwner, key: EpisodeKey) throws(SQLiteError) {
        let statement = try store.prepared("""
            INSERT OR REPLACE INTO download_requests (feed, identity, request, owner_pid, owner_boot, owner_start)
            VALUES (:feed, :identity, :request, :pid, :boot, :start)
            """)
        try statement.bind(key.feed, named: ":feed")
        try statement.bind(key.identity, named: ":identity")
        try statement.bind(request.rawValue, named: ":request")
        try statement.bind(Int(owner.pid), named: ":pid")
        try statement.bind(owner.boot, named: ":boot")
        try statement.bind(owner.started, named: ":start")
        try statement.run()
    }
}
