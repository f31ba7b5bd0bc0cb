import CSQLite
import FoundationEssentials

extension StateStore {
    /// Replaces the current listing and all of its items with `listing`, in one transaction.
    public func replaceListing(_ listing: Listing) throws(StoreError) {
        try write { () throws(SQLiteError) in
            // Cascades to the old items.
            try connection.execute("DELETE FROM current_listing")

            let header = try connection.prepare("""
                INSERT INTO current_listing (id, source, feed_url, feed_title, search_term, created_at)
                VALUES (1, :source, :feed_url, :feed_title, :search_term, :created_at)
                """)
            switch listing.source {
            case .feed(let url, let title):
                try header.bind("feed", named: ":source")
                try header.bind(url, named: ":feed_url")
                try header.bind(title, named: ":feed_title")
                try header.bindNull(named: ":search_term")
            case .previews(let term):
                try header.bind("previews", named: ":source")
                try header.bindNull(named: ":feed_url")
                try header.bindNull(named: ":feed_title")
                try header.bind(term, named: ":search_term")
            }
            try header.bind(Date().timeIntervalSince1970, named: ":created_at")
            try header.run()

            // Many rows to a statement: running one (setting it up, committing it, resetting it)
            // cost as much as writing its row, and a listing has thousands. Bound by position: a
            // name is looked up per bind.
            let batch = try connection.prepare(Self.insertItems(rows: Self.itemsPerInsert))
            var rest = listing.items[...]
            while !rest.isEmpty {
                let items = rest.prefix(Self.itemsPerInsert)
                rest = rest.dropFirst(items.count)
                let insert = items.count == Self.itemsPerInsert ? batch : try connection.prepare(Self.insertItems(rows: items.count))
                for (row, item) in items.enumerated() {
                    let first = Int32(row * Self.listingItemColumns)
                    try insert.bind(item.number, at: first + 1)
                    try insert.bind(item.identity, at: first + 2)
                    try insert.bind(item.title, at: first + 3)
                    try insert.bind(item.enclosureURL, at: first + 4)
                    try insert.bind(item.enclosureType, at: first + 5)
                    try insert.bind(item.enclosureLength, at: first + 6)
                    try insert.bind(item.published?.timeIntervalSince1970, at: first + 7)
                    try insert.bind(item.guid, at: first + 8)
                    try insert.bind(item.integrity?.stored, at: first + 9)
                }
                try insert.run()
                try insert.reset()
            }
        }
    }

    /// How many listing items one INSERT writes.
    private static let itemsPerInsert = 32
    /// The values bound for each listing item.
    private static let listingItemColumns = 9

    /// An INSERT of `rows` listing items, `listingItemColumns` parameters each, numbered in order.
    private static func insertItems(rows: Int) -> String {
        let values = (0..<rows).map { row in
            let first = row * listingItemColumns
            return "(1, " + (1...listingItemColumns).map { "?\(first + $0)" }.joined(separator: ", ") + ")"
        }
        return """
            INSERT INTO listing_items (
                listing, number, identity, title, enclosure_url, enclosure_type, enclosure_length, published, guid, integrity
            ) VALUES \(values.joined(separator: ", "))
            """
    }

    /// The current listing and its items, or nil when none has been stored.
    public func currentListing() throws(StoreError) -> Listing? {
        try read { () throws(SQLiteError) -> Listing? in
            let header = try connection.prepare("""
                SELECT source, feed_url, feed_title, search_term FROM current_listing
                """)
            let source = try header.firstRow { row throws(SQLiteError) -> Listing.Source in
                let kind = try row.string(at: 0)
                switch kind {
                case "feed": return .feed(url: try row.string(at: 1), title: try row.string(at: 2))
                case "previews": return .previews(term: try row.string(at: 3))
                default: throw SQLiteError(code: SQLITE_CORRUPT, message: "unknown listing source '\(kind)'")
                }
            }
            guard let source else { return nil }

            let items = try connection.prepare("""
                SELECT number, identity, title, enclosure_url, enclosure_type, enclosure_length, published, guid, integrity
                FROM listing_items ORDER BY listing, number
                """)
            // In the primary key's order: by number alone, SQLite sorted every item first.
            let listed = try items.rows { row throws(SQLiteError) in
                ListingItem(
                    number: try row.int(at: 0),
                    identity: try row.string(at: 1),
                    title: try row.string(at: 2),
                    enclosureURL: row.optionalString(at: 3),
                    enclosureType: row.optionalString(at: 4),
                    enclosureLength: row.optionalInt64(at: 5),
                    published: row.optionalDouble(at: 6).map { Date(timeIntervalSince1970: $0) },
                    guid: row.optionalString(at: 7), integrity: row.optionalString(at: 8).flatMap(Integrity.init(stored:))
                )
            }
            return Listing(source: source, items: listed)
        }
    }
}
