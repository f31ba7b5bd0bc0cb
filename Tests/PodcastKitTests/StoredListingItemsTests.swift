import CSQLite
import Foundation
import PodcastTestSupport
import Testing
@testable import PodcastKit

@Suite(.timeLimit(.minutes(5))) struct StoredListingItemsTests {
    /// Items with every field set and unset, texts that share beginnings or not, guids that are
    /// the identity or not, and text that only Unicode normalization makes "equal".
    static let items: [ListingItem] = [
        ListingItem(
            number: 1, identity: "a1b2", title: "Première — 東京 🎧", enclosureURL: "https://cdn.example/show/ep1.mp3",
            enclosureType: "audio/mpeg", enclosureLength: 12_345_678, published: Date(timeIntervalSince1970: 1_700_000_000.5),
            guid: "a1b2", integrity: Integrity(type: "sri", value: "sha256-AAAA")),
        ListingItem(
            number: 2, identity: "a1b3", title: "Première — 東京 🎧 (2)", enclosureURL: "https://cdn.example/show/ep2.mp3",
            enclosureType: "audio/mpeg", enclosureLength: 0, published: Date(timeIntervalSince1970: -86_400), guid: "other"),
        ListingItem(number: 3, identity: "enclosure:https://cdn.example/show/ep3.mp3", title: ""),
        // A guid that is the identity in another normalization (é composed, e + combining accent).
        ListingItem(number: 4, identity: "caf\u{E9}", title: "t", guid: "cafe\u{301}"),
        ListingItem(number: 5, identity: "x", title: "x", enclosureURL: "", enclosureType: "", enclosureLength: -1, guid: "x"),
        ListingItem(number: 7, identity: String(repeating: "long ", count: 400), title: "\0 nul inside", enclosureLength: .max),
        ListingItem(number: 8, identity: "y", title: "y", enclosureLength: .min, published: Date(timeIntervalSince1970: 0)),
    ]

    @Test func itemsComeBackAsTheyWere() throws {
        let bytes = StoredListingItems.encode(Self.items)
        let decoded = try bytes.withUnsafeBytes { try StoredListingItems.decode($0) }
        #expect(decoded == Self.items)
        // Byte for byte, not only equal as Swift compares strings.
        #expect(decoded.map { Array($0.guid?.utf8 ?? "".utf8) } == Self.items.map { Array($0.guid?.utf8 ?? "".utf8) })
        #expect(decoded.map { Array($0.title.utf8) } == Self.items.map { Array($0.title.utf8) })
    }

    @Test func noItemsIsAValueToo() throws {
        let bytes = StoredListingItems.encode([ListingItem]())
        #expect(try bytes.withUnsafeBytes { try StoredListingItems.decode($0) } == [])
    }

    @Test func sharedBeginningsAndGuidsThatAreTheIdentityAreWrittenOnce() {
        let items = (1...1_000).map { number in
            ListingItem(
                number: number, identity: "guid-\(number)", title: "Episode \(number)",
                enclosureURL: "https://dts.podtrac.com/redirect.mp3/chrt.fm/track/ABC/traffic.example.com/show/episode-\(number).mp3",
                enclosureType: "audio/mpeg", enclosureLength: 50_000_000, guid: "guid-\(number)")
        }
        let written = StoredListingItems.encode(items).count
        let texts = items.reduce(0) { $0 + $1.identity.utf8.count * 2 + $1.title.utf8.count + $1.enclosureURL!.utf8.count + 10 }
        #expect(written * 3 < texts, "\(written) bytes for \(texts) bytes of text")
    }

    /// Every way bytes podcast did not write can be wrong is reported, never trusted or a crash.
    @Test func damagedBytesAreRefused() {
        let good = StoredListingItems.encode(Self.items)
        // Every prefix is cut short; the whole plus a byte has bytes after the last item.
        for length in 0..<good.count {
            #expect(throws: StoredListingItems.DecodingError.self, "cut at \(length)") {
                try Array(good.prefix(length)).withUnsafeBytes { try StoredListingItems.decode($0) }
            }
        }
        #expect(throws: StoredListingItems.DecodingError.self) {
            try (good + [0]).withUnsafeBytes { try StoredListingItems.decode($0) }
        }
        let refused: [[UInt8]] = [
            [2, 0],  // a newer format
            [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],  // more items than bytes
            [1, 1, 1, 0, 1],  // the identity "is the identity"
            [1, 1, 1, 0, 2, 0, 3, 5, 1],  // a text that shares 3 bytes with nothing before it
            [1, 1, 1, 0, 2, 0, 0],  // an item without a title
            [1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // a number past 64 bits
        ]
        for bytes in refused {
            // Padded, so that each is refused for its own fault, not for being short.
            #expect(throws: StoredListingItems.DecodingError.self, "\(bytes)") {
                try (bytes + Array(repeating: 0, count: 16)).withUnsafeBytes { try StoredListingItems.decode($0) }
            }
        }
    }

    @Test func aDamagedListingInTheStoreIsACorruptStoreError() throws {
        let directory = try TemporaryDirectory(prefix: "StoredListingItemsTests")
        let store = try StateStore(path: directory.path + "/state.sqlite")
        try store.currentListing.replace(with: Listing(source: .feed(url: "https://a.example/feed", title: "A"), items: Self.items))
        try store.connection.execute("UPDATE current_listing SET items = x'0105'")
        #expect {
            try store.currentListing.load()
        } throws: { error in
            guard let error = error as? StoreError, case .corrupt(let reason) = error.kind else { return false }
            return reason.contains("listing")
        }
    }

    /// A store from before this format (schema 12, one row per item) keeps its listing.
    @Test func theListingShownBeforeTheUpgradeKeepsItsNumbers() throws {
        let directory = try TemporaryDirectory(prefix: "StoredListingItemsTests")
        let path = directory.path + "/state.sqlite"
        let version = StateStore.migrations.firstIndex { $0.summary.contains("one value") }!
        do {
            let old = try SQLiteConnection(path: path)
            for migration in StateStore.migrations.prefix(version) { try old.execute(migration.sql) }
            try old.execute("""
                PRAGMA user_version = \(version);
                INSERT INTO current_listing (id, source, feed_url, feed_title, created_at) VALUES (1, 'feed', 'https://a.example/feed', 'A', 0);
                INSERT INTO listing_items (listing, number, identity, title, enclosure_url, enclosure_type, enclosure_length, published, guid, integrity)
                VALUES (1, 1, 'g1', 'Première 東京', 'https://a.example/1.mp3', 'audio/mpeg', 1000, 1700000000.5, 'g1', 'sri sha256-AAAA'),
                       (1, 2, 'enclosure:https://a.example/2.mp3', 'Two', 'https://a.example/2.mp3', NULL, NULL, NULL, NULL, NULL);
                """)
        }
        let store = try StateStore(path: path)
        #expect(try store.schemaVersion() == StateStore.currentSchemaVersion)
        #expect(try store.currentListing.load() == Listing(source: .feed(url: "https://a.example/feed", title: "A"), items: [
            ListingItem(
                number: 1, identity: "g1", title: "Première 東京", enclosureURL: "https://a.example/1.mp3", enclosureType: "audio/mpeg",
                enclosureLength: 1000, published: Date(timeIntervalSince1970: 1_700_000_000.5), guid: "g1",
                integrity: Integrity(type: "sri", value: "sha256-AAAA")),
            ListingItem(number: 2, identity: "enclosure:https://a.example/2.mp3", title: "Two", enclosureURL: "https://a.example/2.mp3"),
        ]))
        let tables = try store.connection.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'listing_items'")
            .firstRow { row throws(SQLiteError) in try row.int(at: 0) }
        #expect(tables == 0)
    }
}
