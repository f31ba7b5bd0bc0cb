import CSQLite
import FoundationEssentials

/// The current listing (`current_listing`): the numbered episodes or previews the last `episodes`,
/// `search` or `download` showed, which later commands' numbers refer to.
public struct CurrentListing {
    let store: StateStore

    /// Replaces the current listing and all of its items with `listing`, in one transaction.
    public func replace(with listing: Listing) throws(StoreError) {
        try replace(source: listing.source, items: listing.items)
    }

    /// Replaces the current listing with `feed`'s first `limit` episodes (all when nil), listed
    /// under `url`: `replace(with: Listing(feed:url:limit:))` without making every item first.
    public func replace(feed: Feed, url: String, limit: Int?) throws(StoreError) {
        try replace(source: .feed(url: url, title: feed.title), items: Listing.items(of: feed, limit: limit))
    }

    private func replace(source: Listing.Source, items: some Collection<ListingItem>) throws(StoreError) {
        let items = StoredListingItems.encode(items)
        try store.write { () throws(SQLiteError) in
            let replace = try store.connection.prepare("""
                INSERT OR REPLACE INTO current_listing (id, source, feed_url, feed_title, search_term, created_at, items)
                VALUES (1, :source, :feed_url, :feed_title, :search_term, :created_at, :items)
                """)
            switch source {
            case .feed(let url, let title):
                try replace.bind("feed", named: ":source")
                try replace.bind(url, named: ":feed_url")
                try replace.bind(title, named: ":feed_title")
                try replace.bindNull(named: ":search_term")
            case .previews(let term):
                try replace.bind("previews", named: ":source")
                try replace.bindNull(named: ":feed_url")
                try replace.bindNull(named: ":feed_title")
                try replace.bind(term, named: ":search_term")
            }
            try replace.bind(Date().timeIntervalSince1970, named: ":created_at")
            try replace.bind(items, named: ":items")
            try replace.run()
        }
    }

    /// The current listing and its items, or nil when none has been stored.
    public func load() throws(StoreError) -> Listing? {
        try store.read { () throws(SQLiteError) -> Listing? in
            let statement = try store.connection.prepare("""
                SELECT source, feed_url, feed_title, search_term, items FROM current_listing
                """)
            return try statement.firstRow { row throws(SQLiteError) -> Listing in
                let kind = try row.string(at: 0)
                let source: Listing.Source
                switch kind {
                case "feed": source = .feed(url: try row.string(at: 1), title: try row.string(at: 2))
                case "previews": source = .previews(term: try row.string(at: 3))
                default: throw SQLiteError(code: SQLITE_CORRUPT, message: "unknown listing source '\(kind)'")
                }
                let items = try row.withBlob(at: 4) { bytes throws(SQLiteError) in
                    do throws(StoredListingItems.DecodingError) {
                        return try StoredListingItems.decode(bytes)
                    } catch {
                        throw SQLiteError(code: SQLITE_CORRUPT, message: "the current listing's items cannot be read: \(error.reason)")
                    }
                }
                return Listing(source: source, items: items)
            }
        }
    }
}
