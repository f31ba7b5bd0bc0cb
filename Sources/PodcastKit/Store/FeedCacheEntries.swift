import CSQLite
import FoundationEssentials

/// The feed cache table (`feed_cache`): the validators and body file of each feed fetched before.
public struct FeedCacheEntries: FeedCache {
    let store: StateStore

    /// The cache entry of the feed at `url`, if it was fetched before.
    public func entry(url: String) throws(StoreError) -> FeedCacheEntry? {
        try store.read { () throws(SQLiteError) -> FeedCacheEntry? in
            let query = try store.connection.prepare("""
                SELECT etag, last_modified, body_file, fetched_at FROM feed_cache WHERE url = :url
                """)
            try query.bind(url, named: ":url")
            return try query.firstRow { row throws(SQLiteError) in
                FeedCacheEntry(
                    url: url, etag: row.optionalString(at: 0), lastModified: row.optionalString(at: 1),
                    bodyFile: try row.string(at: 2),
                    fetchedAt: Date(timeIntervalSince1970: row.optionalDouble(at: 3) ?? 0))
            }
        }
    }

    /// Stores (or replaces) the cache entry of `entry.url`.
    public func save(_ entry: FeedCacheEntry) throws(StoreError) {
        try store.write { () throws(SQLiteError) in try upsert(entry) }
    }

    /// Stores `entry` inside the caller's transaction.
    func upsert(_ entry: FeedCacheEntry) throws(SQLiteError) {
        let upsert = try store.connection.prepare("""
            INSERT INTO feed_cache (url, etag, last_modified, body_file, fetched_at)
            VALUES (:url, :etag, :last_modified, :body_file, :fetched_at)
            ON CONFLICT (url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
                body_file = excluded.body_file, fetched_at = excluded.fetched_at
            """)
        try upsert.bind(entry.url, named: ":url")
        try upsert.bind(entry.etag, named: ":etag")
        try upsert.bind(entry.lastModified, named: ":last_modified")
        try upsert.bind(entry.bodyFile, named: ":body_file")
        try upsert.bind(entry.fetchedAt.timeIntervalSince1970, named: ":fetched_at")
        try upsert.run()
    }
}
