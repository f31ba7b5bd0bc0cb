import CSQLite
import FoundationEssentials

/// The last search and its results (`last_search`, `search_results`): what `podcast feed N` reads.
public struct LastSearch {
    let store: StateStore

    /// Replaces the last search and all of its results with `outcome`, in one transaction.
    public func replace(with outcome: SearchOutcome) throws(StoreError) {
        try store.write { () throws(SQLiteError) in
            // Cascades to the old results.
            try store.connection.execute("DELETE FROM last_search")

            let search = try store.connection.prepare("""
                INSERT INTO last_search (id, term, media, country, result_limit, searched_at, skipped_other_kinds, directory)
                VALUES (1, :term, :media, :country, :limit, :searched_at, :skipped, :directory)
                """)
            try search.bind(outcome.query.term, named: ":term")
            try search.bind(outcome.query.media.rawValue, named: ":media")
            try search.bind(outcome.query.country, named: ":country")
            try search.bind(outcome.query.limit, named: ":limit")
            try search.bind(Date().timeIntervalSince1970, named: ":searched_at")
            try search.bind(outcome.skippedOtherKinds, named: ":skipped")
            try search.bind(outcome.directory, named: ":directory")
            try search.run()

            let insert = try store.connection.prepare("""
                INSERT INTO search_results (
                    search, number, item_id, name, artist, feed_url, preview_url,
                    genre, episode_count, artwork_url, store_url, release_date
                ) VALUES (
                    1, :number, :item_id, :name, :artist, :feed_url, :preview_url,
                    :genre, :episode_count, :artwork_url, :store_url, :release_date
                )
                """)
            for result in outcome.results {
                try insert.bind(result.number, named: ":number")
                try insert.bind(result.id, named: ":item_id")
                try insert.bind(result.name, named: ":name")
                try insert.bind(result.artist, named: ":artist")
                try insert.bind(result.feedURL, named: ":feed_url")
                try insert.bind(result.previewURL, named: ":preview_url")
                try insert.bind(result.genre, named: ":genre")
                try insert.bind(result.episodeCount, named: ":episode_count")
                try insert.bind(result.artworkURL, named: ":artwork_url")
                try insert.bind(result.storeURL, named: ":store_url")
                try insert.bind(result.releaseDate, named: ":release_date")
                try insert.run()
                try insert.reset()
            }
        }
    }

    /// The last search and its results, or nil when no search has been stored.
    public func load() throws(StoreError) -> SearchOutcome? {
        try store.read { () throws(SQLiteError) -> SearchOutcome? in
            let search = try store.connection.prepare("""
                SELECT term, media, country, result_limit, skipped_other_kinds, directory FROM last_search
                """)
            let stored = try search.firstRow { row throws(SQLiteError) -> SearchOutcome in
                let media = try row.string(at: 1)
                guard let kind = SearchMedia(rawValue: media) else {
                    throw SQLiteError(code: SQLITE_CORRUPT, message: "unknown search media '\(media)'")
                }
                let query = SearchQuery(
                    term: try row.string(at: 0), media: kind,
                    country: try row.string(at: 2), limit: try row.int(at: 3)
                )
                return SearchOutcome(query: query, results: [], skippedOtherKinds: try row.int(at: 4), directory: try row.string(at: 5))
            }
            guard var outcome = stored else { return nil }

            let results = try store.connection.prepare("SELECT \(resultColumns) FROM search_results ORDER BY number")
            outcome.results = try results.rows(searchResult(from:))
            return outcome
        }
    }

    /// The result numbered `number` in the last search, or nil when there is none.
    public func result(number: Int) throws(StoreError) -> SearchResult? {
        // One statement reads one snapshot: no explicit transaction needed.
        try store.sqlite { () throws(SQLiteError) -> SearchResult? in
            let statement = try store.connection.prepare(
                "SELECT \(resultColumns) FROM search_results WHERE number = :number"
            )
            try statement.bind(number, named: ":number")
            return try statement.firstRow(searchResult(from:))
        }
    }

    /// The columns `searchResult(from:)` reads, in its order.
    private var resultColumns: String {
        """
        number, item_id, name, artist, feed_url, preview_url,
        genre, episode_count, artwork_url, store_url, release_date
        """
    }

    private func searchResult(from row: SQLiteStatement) throws(SQLiteError) -> SearchResult {
        SearchResult(
            number: try row.int(at: 0),
            id: try row.int(at: 1),
            name: try row.string(at: 2),
            artist: try row.string(at: 3),
            feedURL: row.optionalString(at: 4),
            previewURL: row.optionalString(at: 5),
            genre: row.optionalString(at: 6),
            episodeCount: row.optionalInt(at: 7),
            artworkURL: row.optionalString(at: 8),
            storeURL: row.optionalString(at: 9),
            releaseDate: row.optionalString(at: 10)
        )
    }
}
