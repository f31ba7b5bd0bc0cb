/// One answer to "which records name an episode by its feed and identity, and how do they all move
/// together": when a recognised episode takes a new identity (`rekey`), a subscription's feed moves,
/// and when the store's keys are made again on an upgrade. It works on a connection, not a store:
/// the migrations that need it run on the bare connection while the store opens.
enum EpisodeRecords {
    /// The tables that keep an episode's records by feed and identity, besides `downloads`: they
    /// follow their download record, or go alone where the episode has none.
    static let tables = ["library_files", "deleted_episodes", "batch_items", "download_requests", "placements"]

    /// Gives the episode `identity` of `feed` the identity `renewed` in every record of it. Where
    /// the episode has a download record under `renewed` already (the same episode, fetched again
    /// under its other identity), that one stays, and the old one keeps its identity with its
    /// companions and the rest: a file is never handed to another record.
    static func rekey(feed: String, identity: String, to renewed: String, in connection: SQLiteConnection) throws(SQLiteError) {
        let download = try connection.prepare("UPDATE OR IGNORE downloads SET identity = ?1 WHERE feed = ?2 AND identity = ?3")
        try download.bind(renewed, at: 1)
        try download.bind(feed, at: 2)
        try download.bind(identity, at: 3)
        try download.run()
        for table in tables {
            let records = try connection.prepare("""
                UPDATE OR IGNORE \(table) SET identity = ?1 WHERE feed = ?2 AND identity = ?3
                    AND NOT EXISTS (SELECT 1 FROM downloads WHERE feed = ?2 AND identity = ?3)
                """)
            try records.bind(renewed, at: 1)
            try records.bind(feed, at: 2)
            try records.bind(identity, at: 3)
            try records.run()
        }
    }

    /// Moves every episode record of feed `old` to feed `new` (the feed's address changed). An
    /// episode with a download record under `new` already keeps its old records where they are,
    /// with their files.
    static func move(fromFeed old: String, toFeed new: String, in connection: SQLiteConnection) throws(SQLiteError) {
        let downloads = try connection.prepare("UPDATE OR IGNORE downloads SET feed = ?1 WHERE feed = ?2")
        try downloads.bind(new, at: 1)
        try downloads.bind(old, at: 2)
        try downloads.run()
        for table in tables {
            let records = try connection.prepare("""
                UPDATE OR IGNORE \(table) SET feed = ?1 WHERE feed = ?2
                    AND NOT EXISTS (SELECT 1 FROM downloads AS d WHERE d.feed = ?2 AND d.identity = \(table).identity)
                """)
            try records.bind(new, at: 1)
            try records.bind(old, at: 2)
            try records.run()
        }
    }
}
