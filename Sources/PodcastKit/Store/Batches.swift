import CSQLite
import FoundationEssentials
import Glibc
import PodcastPlatform

/// The batches table (`batches`, `batch_items`): the downloads queued for the background worker,
/// batch by batch, until each settles.
public struct Batches {
    let store: StateStore

    /// Queues `items` as a new batch for the background worker, all in one transaction: each
    /// episode becomes a `queued` record with no owner (its resume data and partial file kept), so
    /// the worker can take it. An episode already downloaded settles at once as skipped; one that
    /// a live process is fetching is left to it and settles when that process ends it.
    public func enqueue(_ items: [DownloadItem], settings: QueuedSettings, onComplete: String?) throws(StoreError) -> QueuedBatch {
        let encodedOptions = settings.stored
        return try store.write { () throws(SQLiteError) -> QueuedBatch in
            let insert = try store.connection.prepare("""
                INSERT INTO batches (created_at, options, on_complete) VALUES (:now, :options, :on_complete) RETURNING id
                """)
            try insert.bind(Date().timeIntervalSince1970, named: ":now")
            try insert.bind(encodedOptions, named: ":options")
            try insert.bind(onComplete, named: ":on_complete")
            guard let id = try insert.firstRow({ row throws(SQLiteError) in try row.int(at: 0) }) else {
                throw SQLiteError(code: SQLITE_ERROR, message: "the new batch got no id")
            }
            var queued = QueuedBatch(id: id, queued: 0, settled: 0)
            for item in items {
                let outcome = try queue(item)
                try insertBatchItem(batch: id, item, outcome: outcome)
                if outcome == nil { queued.queued += 1 } else { queued.settled += 1 }
            }
            return queued
        }
    }

    /// Marks `item` queued for the worker, or returns how it settles at once.
    private func queue(_ item: DownloadItem) throws(SQLiteError) -> DownloadResult? {
        guard let url = item.entry.enclosureURL else {
            return DownloadResult(item: item, state: .skipped, path: nil, bytes: 0, error: DownloadResult.noMedia)
        }
        let existing = try store.downloads.select(item.key)
        if let existing {
            if existing.state == .downloaded, let path = existing.path, access(path, F_OK) == 0 {
                return DownloadResult(item: item, state: .skipped, path: path, bytes: 0, error: "already downloaded")
            }
            if [.queued, .downloading].contains(existing.state), existing.owner?.isAlive == true {
                return nil
            }
        }
        var record = DownloadRecord(queuing: item, url: url)
        if let existing {
            record.adoptResumeData(of: existing)
            record.resume.partialPath = existing.resume.partialPath
        }
        try store.downloads.upsert(record)
        return nil
    }

    private func insertBatchItem(batch: Int, _ item: DownloadItem, outcome: DownloadResult?) throws(SQLiteError) {
        let statement = try store.prepared("""
            INSERT OR IGNORE INTO batch_items (batch, feed, identity, number, guid, podcast, title, outcome, path, bytes, error)
            VALUES (:batch, :feed, :identity, :number, :guid, :podcast, :title, :outcome, :path, :bytes, :error)
            """)
        try statement.bind(batch, named: ":batch")
        try statement.bind(item.feed, named: ":feed")
        try statement.bind(item.entry.identity, named: ":identity")
        try statement.bind(item.number, named: ":number")
        try statement.bind(item.entry.guid, named: ":guid")
        try statement.bind(item.podcastTitle, named: ":podcast")
        try statement.bind(item.entry.title, named: ":title")
        try statement.bind(outcome?.state.rawValue, named: ":outcome")
        try statement.bind(outcome?.path, named: ":path")
        try statement.bind(outcome.map { Int($0.bytes) }, named: ":bytes")
        try statement.bind(outcome?.error, named: ":error")
        try statement.run()
    }

    /// The worker's next piece of work: the oldest open batch's queued episodes that no process
    /// owns, taken for `owner` in the same transaction (so `pause` from now on asks `owner`);
    /// with `settings`, only of a batch queued with exactly those settings.
    public func takeWork(
        for owner: ProcessOwner, settings: QueuedSettings? = nil
    ) throws(StoreError) -> (batch: BackgroundBatch, records: [DownloadRecord])? {
        let encodedOptions = settings?.stored
        return try store.write { () throws(SQLiteError) -> (batch: BackgroundBatch, records: [DownloadRecord])? in
            let next = try store.connection.prepare("""
                SELECT MIN(items.batch) FROM batch_items AS items JOIN batches ON batches.id = items.batch
                JOIN downloads USING (feed, identity)
                WHERE batches.finished_at IS NULL AND items.outcome IS NULL
                    AND downloads.state = 'queued' AND downloads.owner_pid IS NULL
                    AND (:options IS NULL OR batches.options = :options)
                """)
            try next.bind(encodedOptions, named: ":options")
            guard let id = try next.firstRow({ row throws(SQLiteError) in row.optionalInt(at: 0) }) ?? nil,
                let batch = try selectBatches(where: "id = :id", id: id).first else { return nil }
            let free = try store.connection.prepare("""
                SELECT \(DownloadRecords.columns) FROM downloads
                WHERE state = 'queued' AND owner_pid IS NULL
                    AND (feed, identity) IN (SELECT feed, identity FROM batch_items WHERE batch = :batch AND outcome IS NULL)
                ORDER BY published DESC, title
                """)
            try free.bind(id, named: ":batch")
            var records = try free.rows { row throws(SQLiteError) in try DownloadRecords.record(from: row) }
            for index in records.indices {
                records[index].owner = owner
                try store.downloads.upsert(records[index])
            }
            return (batch, records)
        }
    }

    /// True when an open batch still has an episode waiting for a worker, or an update waits.
    public func hasWork() throws(StoreError) -> Bool {
        try store.read { () throws(SQLiteError) -> Bool in
            let query = try store.connection.prepare("""
                SELECT 1 FROM batch_items AS items JOIN batches ON batches.id = items.batch JOIN downloads USING (feed, identity)
                WHERE batches.finished_at IS NULL AND items.outcome IS NULL
                    AND downloads.state = 'queued' AND downloads.owner_pid IS NULL
                UNION ALL SELECT 1 FROM update_requests
                LIMIT 1
                """)
            return try query.firstRow { _ throws(SQLiteError) in true } ?? false
        }
    }

    /// Settles the episodes of open batches whose downloads have ended, by whichever process: a
    /// downloaded, failed or vanished (cancelled) record settles its episode; queued, running and
    /// paused ones keep the batch open. Batches whose every episode has settled are finished here,
    /// each with its summary path `<summaries>/<id>.json`, and returned, exactly once across processes.
    public func settle(summaries: String) throws(StoreError) -> [BackgroundBatch] {
        try store.write { () throws(SQLiteError) -> [BackgroundBatch] in
            try store.connection.execute("""
                UPDATE batch_items SET outcome = downloads.state, path = downloads.path, bytes = downloads.bytes, error = downloads.error
                FROM downloads
                WHERE downloads.feed = batch_items.feed AND downloads.identity = batch_items.identity
                    AND downloads.state IN ('downloaded', 'failed') AND batch_items.outcome IS NULL
                    AND batch_items.batch IN (SELECT id FROM batches WHERE finished_at IS NULL);
                UPDATE batch_items SET outcome = 'cancelled', error = 'cancelled'
                WHERE outcome IS NULL AND batch IN (SELECT id FROM batches WHERE finished_at IS NULL)
                    AND NOT EXISTS (SELECT 1 FROM downloads WHERE feed = batch_items.feed AND identity = batch_items.identity);
                """)
            let finishing = try store.connection.prepare("""
                SELECT id FROM batches WHERE finished_at IS NULL
                    AND NOT EXISTS (SELECT 1 FROM batch_items WHERE batch = batches.id AND outcome IS NULL)
                """)
            let ids = try finishing.rows { row throws(SQLiteError) in try row.int(at: 0) }
            var finished: [BackgroundBatch] = []
            for id in ids {
                let update = try store.connection.prepare("UPDATE batches SET finished_at = :now, summary_path = :path WHERE id = :id")
                try update.bind(Date().timeIntervalSince1970, named: ":now")
                try update.bind(summaries + "/\(id).json", named: ":path")
                try update.bind(id, named: ":id")
                try update.run()
                finished += try selectBatches(where: "id = :id", id: id)
            }
            return finished
        }
    }

    /// The open batches and those finished since `since`, newest first.
    public func all(finishedSince since: Date) throws(StoreError) -> [BackgroundBatch] {
        try store.read { () throws(SQLiteError) -> [BackgroundBatch] in
            try selectBatches(where: "finished_at IS NULL OR finished_at >= :since", since: since.timeIntervalSince1970)
        }
    }

    private func selectBatches(where condition: String, id: Int? = nil, since: Double? = nil) throws(SQLiteError) -> [BackgroundBatch] {
        let query = try store.connection.prepare("""
            SELECT id, created_at, finished_at, options, on_complete, summary_path FROM batches WHERE \(condition) ORDER BY id DESC
            """)
        if let id { try query.bind(id, named: ":id") }
        if let since { try query.bind(since, named: ":since") }
        var batches = try query.rows { row throws(SQLiteError) in
            let id = try row.int(at: 0)
            // A foreground run's batch records no settings: nothing runs it later.
            var settings = QueuedSettings(Settings(), secretsFile: nil)
            if let stored = row.optionalString(at: 3) {
                do throws(StoredSettingsError) { settings = try QueuedSettings(stored: stored) } catch {
                    throw SQLiteError.unreadable("background batch \(id)", error)
                }
            }
            return BackgroundBatch(
                id: id, created: Date(timeIntervalSince1970: row.optionalDouble(at: 1) ?? 0),
                finished: row.optionalDouble(at: 2).map { Date(timeIntervalSince1970: $0) }, settings: settings,
                onComplete: row.optionalString(at: 4), summaryPath: row.optionalString(at: 5), results: [], pending: 0)
        }
        let items = try store.connection.prepare("""
            SELECT feed, identity, number, guid, podcast, title, outcome, path, bytes, error
            FROM batch_items WHERE batch = :batch ORDER BY rowid
            """)
        for index in batches.indices {
            items.resetForReuse()
            try items.bind(batches[index].id, named: ":batch")
            while try items.step() {
                guard let outcome = items.optionalString(at: 6).flatMap(DownloadResult.State.init) else {
                    batches[index].pending += 1
                    continue
                }
                let number = items.optionalInt(at: 2)
                let entry = ListingItem(number: number ?? 0, identity: try items.string(at: 1), title: try items.string(at: 5), guid: items.optionalString(at: 3))
                let item = DownloadItem(number: number, entry: entry, feed: try items.string(at: 0), podcastTitle: try items.string(at: 4))
                batches[index].results.append(DownloadResult(
                    item: item, state: outcome, path: items.optionalString(at: 7), bytes: items.optionalInt64(at: 8) ?? 0,
                    error: items.optionalString(at: 9)))
            }
        }
        return batches
    }
}
