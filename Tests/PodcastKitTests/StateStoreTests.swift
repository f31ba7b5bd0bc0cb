import Foundation
@testable import PodcastPlatform
import PodcastTestSupport
import Testing
@testable import PodcastKit

@Suite(.timeLimit(.minutes(5))) struct StateStoreTests {
    @Test func theStoreAndItsLogAreReadableByTheirOwnerOnly() throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")
            try store.downloads.save(DownloadRecord(
                feed: "https://u:p@example.com/feed.xml", identity: "e", podcastTitle: "Show", title: "E", url: "https://example.com/e.mp3",
                mediaType: nil, published: nil))
            for name in ["state.sqlite", "state.sqlite-wal"] {
                let mode = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(name)")
            }
            withExtendedLifetime(store) {}
        }
    }

    @Test func searchRoundTripKeepsEveryField() throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")
            let outcome = SearchOutcome(
                query: SearchQuery(
                    term: "café 東京 🎧 \"quoted\" 'single'", media: .music, country: "jp", limit: 200
                ),
                results: [
                    SearchResult(
                        number: 1, id: 1_234_567_890_123, name: "Ça va — 音楽", artist: "Zoë 👩‍🎤",
                        feedURL: "https://example.com/feed?x=1&y=ü", previewURL: "https://example.com/p.m4a",
                        genre: "Électronique", episodeCount: 0, artworkURL: "https://example.com/a.jpg",
                        storeURL: "https://music.apple.com/jp/1", releaseDate: "2024-02-29T12:00:00Z"
                    ),
                    SearchResult(number: 2, id: -1, name: "", artist: "nil fields"),
                ],
                skippedOtherKinds: 7
            )

            try store.lastSearch.replace(with: outcome)

            #expect(try store.lastSearch.load() == outcome)
        }
    }

    @Test func noSearchStoredReadsAsNil() throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")

            #expect(try store.lastSearch.load() == nil)
            #expect(try store.lastSearch.result(number: 1) == nil)
            #expect(try store.currentListing.load() == nil)
        }
    }

    @Test func searchResultIsFoundByNumber() throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")
            try store.lastSearch.replace(with: sampleSearch(term: "news", count: 3))

            #expect(try store.lastSearch.result(number: 2)?.name == "news 2")
            #expect(try store.lastSearch.result(number: 4) == nil)
        }
    }

    @Test func replacingSearchRemovesOldResults() throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")
            try store.lastSearch.replace(with: sampleSearch(term: "first", count: 5))

            let second = sampleSearch(term: "second", count: 2)
            try store.lastSearch.replace(with: second)

            #expect(try store.lastSearch.load() == second)
            #expect(try store.lastSearch.result(number: 3) == nil)
            #expect(try rowCount("search_results", in: store) == 2)
        }
    }

    @Test(arguments: [
        Listing(
            source: .feed(url: "https://example.com/feed.xml", title: "Früh 🌅 Show"),
            items: [
                ListingItem(
                    number: 1, identity: "guid:urn:uuid:1", title: "Épisode 1 — 日本",
                    enclosureURL: "https://example.com/1.mp3", enclosureType: "audio/mpeg",
                    enclosureLength: 5_000_000_000, published: Date(timeIntervalSince1970: 1_700_000_000.5)
                ),
                ListingItem(number: 2, identity: "fallback:no-enclosure", title: "No enclosure"),
            ]
        ),
        Listing(
            source: .previews(term: "björk"),
            items: [
                ListingItem(
                    number: 1, identity: "track:42", title: "Jóga",
                    enclosureURL: "https://example.com/42.m4a", enclosureType: "audio/x-m4a",
                    published: Date(timeIntervalSince1970: -86_400)
                ),
            ]
        ),
    ])
    func listingRoundTripKeepsSourceAndItems(listing: Listing) throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")

            try store.currentListing.replace(with: listing)

            #expect(try store.currentListing.load() == listing)
        }
    }

    @Test func replacingListingRemovesOldItems() throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")
            let items = (1...4).map { ListingItem(number: $0, identity: "id-\($0)", title: "Episode \($0)") }
            try store.currentListing.replace(with: Listing(source: .feed(url: "https://a.example/feed", title: "A"), items: items))

            let replacement = Listing(source: .previews(term: "jazz"), items: [items[0]])
            try store.currentListing.replace(with: replacement)

            #expect(try store.currentListing.load() == replacement)
            #expect(try rowCount("current_listing", in: store) == 1)
        }
    }

    @Test func newStoreIsAtCurrentSchemaVersionInWALMode() throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")

            #expect(try store.schemaVersion() == StateStore.currentSchemaVersion)
            let mode = try store.connection.prepare("PRAGMA journal_mode")
                .firstRow { row throws(SQLiteError) in try row.string(at: 0) }
            #expect(mode == "wal")
        }
    }

    @Test func openingAgainKeepsSchemaAndData() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/state.sqlite"
            let search = sampleSearch(term: "kept", count: 2)
            try StateStore(path: path).lastSearch.replace(with: search)

            let reopened = try StateStore(path: path)
            try reopened.migrate()

            #expect(try reopened.schemaVersion() == StateStore.currentSchemaVersion)
            #expect(try reopened.lastSearch.load() == search)
        }
    }

    @Test func rebuildingTheDownloadsTableKeepsEveryFieldAndTheStateCheck() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/state.sqlite"
            var record = DownloadRecord(
                feed: "https://a.example/feed", identity: "ep-1", podcastTitle: "Show", title: "Episode 1",
                url: "https://a.example/1.mp3", mediaType: "audio/mpeg", published: Date(timeIntervalSince1970: 1_700_000_000))
            record.effectiveURL = "https://cdn.example/1.mp3"
            record.state = .paused
            record.bytes = 1_000
            record.resume.total = 5_000
            record.resume.etag = "\"e1\""
            record.resume.lastModified = "Sun, 22 Nov 2026 12:00:00 GMT"
            record.resume.partialPath = directory + "/.partial/1.part"
            record.path = directory + "/Show/1.mp3"
            record.error = "paused"
            record.owner = ProcessOwner(pid: 42, boot: "boot-1", started: 7)
            record.guid = "guid-1"
            record.enclosureLength = 5_000
            record.resume.durableBytes = 900
            record.resume.dataBoot = "boot-1"
            record.failures = 2
            record.finalError = true
            record.speed = 12.5
            record.integrity = Integrity(type: "sri", value: "sha256-abc")
            try StateStore(path: path).downloads.save(record)
            // Run the rebuild again over the stored record, then the columns later steps added.
            let rebuild = try #require(StateStore.migrations.firstIndex { $0.summary.contains("state check") })
            try StateStore(path: path).connection.execute(StateStore.migrations[rebuild].sql)
            for later in StateStore.migrations[(rebuild + 1)...] {
                for statement in later.sql.split(separator: ";") where statement.contains("ALTER TABLE downloads") {
                    try StateStore(path: path).connection.execute(String(statement))
                }
            }

            let reopened = try StateStore(path: path)
            #expect(try reopened.schemaVersion() == StateStore.currentSchemaVersion)
            #expect(try reopened.downloads.record(EpisodeKey(feed: record.feed, identity: record.identity)) == record)
            #expect(throws: SQLiteError.self) {
                try reopened.connection.execute("UPDATE downloads SET state = 'lost'")
            }
            #expect(try reopened.downloads.episode(owning: record.path ?? "")?.identity == "ep-1")
        }
    }

    @Test func aRecordKeepsItsFilesDigestAndTheSettingsItWasAskedWith() throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")
            var record = DownloadRecord(
                feed: "https://a.example/feed", identity: "ep-1", podcastTitle: "Show", title: "Episode 1",
                url: "https://a.example/1.mp3", mediaType: nil, published: nil)
            record.state = .downloaded
            record.path = directory + "/Show/1.mp3"
            record.sha256 = String(repeating: "ab", count: 32)
            record.library = LibrarySettings(nameTemplate: try NameTemplate("{title}.{ext}"), companions: [.info], tag: true)
            try store.downloads.save(record)
            #expect(try store.downloads.record(record.key) == record)
        }
    }

    @Test func newerSchemaVersionIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/state.sqlite"
            let newer = StateStore.currentSchemaVersion + 1
            try StateStore(path: path).connection.execute("PRAGMA user_version = \(newer)")

            let error = try #require(throws: StoreError.self) { try StateStore(path: path) }

            #expect(error.kind == .newerSchema(found: newer, known: StateStore.currentSchemaVersion))
            #expect(error.description.contains("newer podcast version"))
            #expect(error.description.contains(path))
        }
    }

    @Test(arguments: [
        Data("not a database\n".utf8),
        Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }),
    ])
    func garbageFileIsReportedAndLeftUntouched(garbage: Data) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/state.sqlite"
            try garbage.write(to: URL(fileURLWithPath: path))

            let error = try #require(throws: StoreError.self) { try StateStore(path: path) }

            #expect(error.kind == .notADatabase)
            #expect(error.description.contains(path))
            #expect(error.description.contains("move it aside"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        }
    }

    @Test func missingDirectoryIsReportedAsCannotOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/missing/state.sqlite"

            let error = try #require(throws: StoreError.self) { try StateStore(path: path) }

            guard case .cannotOpen = error.kind else {
                Issue.record("expected cannotOpen, got \(error.kind)")
                return
            }
            #expect(error.description.contains(path))
        }
    }

    @Test func openingByPathsCreatesOwnerOnlyHome() throws {
        try withTemporaryDirectory { directory in
            let paths = PodcastPaths(home: directory + "/data/podcast")

            let store = try StateStore.open(paths: paths)

            #expect(store.path == paths.database)
            #expect(FileManager.default.fileExists(atPath: paths.database))
            let attributes = try FileManager.default.attributesOfItem(atPath: paths.home)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        }
    }

    @Test func failingTransactionBodyRollsBackAndRethrows() throws {
        struct Abandoned: Error {}
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")
            let kept = sampleSearch(term: "kept", count: 3)
            try store.lastSearch.replace(with: kept)

            #expect(throws: Abandoned.self) {
                try store.transaction {
                    try store.lastSearch.replace(with: sampleSearch(term: "discarded", count: 1))
                    try store.currentListing.replace(with: Listing(source: .previews(term: "discarded"), items: []))
                    throw Abandoned()
                }
            }

            #expect(try store.lastSearch.load() == kept)
            #expect(try store.currentListing.load() == nil)
        }
    }

    @Test func transactionKeepsEveryChangeWhenBodyReturns() throws {
        try withTemporaryDirectory { directory in
            let store = try StateStore(path: directory + "/state.sqlite")
            let search = sampleSearch(term: "together", count: 2)
            let listing = Listing(source: .previews(term: "together"), items: [])

            let value = try store.transaction {
                try store.lastSearch.replace(with: search)
                try store.currentListing.replace(with: listing)
                return 42
            }

            #expect(value == 42)
            #expect(try store.lastSearch.load() == search)
            #expect(try store.currentListing.load() == listing)
        }
    }
}

/// A podcast search for `term` with `count` results named "`term` N".
private func sampleSearch(term: String, count: Int) -> SearchOutcome {
    let results = (1...count).map {
        SearchResult(number: $0, id: $0, name: "\(term) \($0)", artist: "artist", feedURL: "https://example.com/\($0)")
    }
    return SearchOutcome(query: SearchQuery(term: term), results: results)
}

/// The number of rows in `table`, read behind the domain API to see what a replacement left.
private func rowCount(_ table: String, in store: StateStore) throws -> Int? {
    try store.connection.prepare("SELECT count(*) FROM \(table)")
        .firstRow { row throws(SQLiteError) in try row.int(at: 0) }
}

/// Runs `body` with a new, empty directory that is removed afterwards.
private func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
    let directory = try TemporaryDirectory(prefix: "StateStoreTests")
    try body(directory.path)
}
