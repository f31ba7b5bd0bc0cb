import FoundationEssentials

/// An episode whose files podcast deleted (`delete`, `keep`, `unsubscribe --delete-files`), as
/// `deleted_episodes` remembers it: its download record is gone, but `history` still lists it.
public struct DeletedEpisode: Sendable, Equatable {
    /// The feed it came from.
    public var feed: String
    /// Its identity in that feed.
    public var identity: String
    /// The podcast's title.
    public var podcastTitle: String
    /// The episode's title.
    public var title: String
    /// Its enclosure's address.
    public var url: String
    /// When its files were deleted.
    public var deletedAt: Date
}

/// The deleted episodes table (`deleted_episodes`): what `history` tells of files podcast deleted.
public struct DeletedEpisodes {
    let store: StateStore

    /// The episodes podcast deleted the files of, the most recently deleted first, at most
    /// `limit` of them (nil: all), unless downloaded again since.
    public func latest(limit: Int?) throws(StoreError) -> [DeletedEpisode] {
        try store.read { () throws(SQLiteError) -> [DeletedEpisode] in
            let query = try store.connection.prepare("""
                SELECT feed, identity, podcast_title, title, url, deleted_at FROM deleted_episodes AS x
                WHERE NOT EXISTS (SELECT 1 FROM downloads WHERE feed = x.feed AND identity = x.identity AND state = 'downloaded')
                ORDER BY deleted_at DESC, podcast_title, title LIMIT :limit
                """)
            try query.bind(limit ?? -1, named: ":limit")
            return try query.rows { row throws(SQLiteError) in
                DeletedEpisode(
                    feed: try row.string(at: 0), identity: try row.string(at: 1), podcastTitle: try row.string(at: 2),
                    title: try row.string(at: 3), url: try row.string(at: 4), deletedAt: Date(timeIntervalSince1970: row.optionalDouble(at: 5) ?? 0))
            }
        }
    }
}
