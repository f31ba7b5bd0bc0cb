import CSQLite
import FoundationEssentials

/// The update requests table (`update_requests`): the updates queued for the background worker.
public struct UpdateRequests {
    let store: StateStore

    /// Queues an update for the background worker; returns its number.
    public func enqueue(subscriptions: [Int]?, refresh: Bool, settings: QueuedSettings) throws(StoreError) -> Int {
        let ids = subscriptions.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }
        return try store.write { () throws(SQLiteError) -> Int in
            let insert = try store.connection.prepare("""
                INSERT INTO update_requests (created_at, subscriptions, refresh, settings)
                VALUES (:now, :subscriptions, :refresh, :settings) RETURNING id
                """)
            try insert.bind(Date().timeIntervalSince1970, named: ":now")
            try insert.bind(ids, named: ":subscriptions")
            try insert.bind(refresh ? 1 : 0, named: ":refresh")
            try insert.bind(settings.stored, named: ":settings")
            guard let id = try insert.firstRow({ row throws(SQLiteError) in try row.int(at: 0) }) else {
                throw SQLiteError(code: SQLITE_ERROR, message: "the new update request got no id")
            }
            return id
        }
    }

    /// Takes the oldest waiting update (it is removed: an update cut short is not retried, the
    /// next one fetches the feeds again and `resume` continues its downloads).
    public func takeOldest() throws(StoreError) -> UpdateRequest? {
        try store.write { () throws(SQLiteError) -> UpdateRequest? in
            let query = try store.connection.prepare("""
                DELETE FROM update_requests WHERE id = (SELECT MIN(id) FROM update_requests)
                RETURNING id, subscriptions, refresh, settings
                """)
            return try query.firstRow { row throws(SQLiteError) in
                let ids = row.optionalString(at: 1).map { text in
                    text.split { !$0.isNumber }.compactMap { Int($0) }
                }
                let id = try row.int(at: 0)
                let settings: QueuedSettings
                let stored = try row.string(at: 3)
                do throws(StoredSettingsError) { settings = try QueuedSettings(stored: stored) } catch {
                    throw SQLiteError.unreadable("queued update \(id)", error)
                }
                return UpdateRequest(id: id, subscriptions: ids, refresh: try row.int(at: 2) == 1, settings: settings)
            }
        }
    }
}
