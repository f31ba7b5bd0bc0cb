import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// The upgrade that rewrites the settings records earlier versions kept (batches' JSON of
/// optional fields, downloads' `key=value` lines) in the schema's one form, and what happens to a
/// record that reads as neither.
@Suite(.timeLimit(.minutes(5))) struct SettingsRecordMigrationTests {
    @Test func earlierRecordsAreCarriedOverAndABrokenOneIsNamed() throws {
        let directory = try TemporaryDirectory(prefix: "settings-migration")
        let path = directory.path("state.sqlite")
        let store = try StateStore(path: path)
        var record = DownloadRecord(feed: "http://h/feed.xml", identity: "g1", podcastTitle: "Show", title: "E1", url: "http://h/1.mp3", mediaType: nil, published: nil)
        try store.downloads.save(record)
        record.identity = "g2"
        record.title = "E2"
        try store.downloads.save(record)
        try store.connection.execute("UPDATE downloads SET library = 'template={title}.{ext}' || char(10) || 'tag=1' WHERE identity = 'g1'")
        try store.connection.execute("UPDATE downloads SET library = 'template=no ext' WHERE identity = 'g2'")
        try store.connection.execute("""
            INSERT INTO update_requests (subscriptions, refresh, settings, created_at)
            VALUES (NULL, 0, '{"concurrency":4,"feedTimeoutSeconds":30,"stallSpeed":1024}', 0)
            """)
        let before = try #require(StateStore.migrations.firstIndex { $0.summary.contains("StoredSettings") })
        try store.connection.execute("PRAGMA user_version = \(before)")

        let upgraded = try StateStore(path: path)
        try upgraded.migrate()
        let update = try #require(try upgraded.updateRequests.takeOldest())
        #expect(update.settings.settings.engine.concurrency == 4)
        #expect(update.settings.feedDeadlines.feed == .seconds(30))
        let text = try upgraded.connection.prepare("SELECT library FROM downloads WHERE identity = 'g1'")
        let carried = try #require(try text.firstRow { row throws(SQLiteError) in try row.string(at: 0) })
        #expect(try LibrarySettings(stored: carried) == LibrarySettings(nameTemplate: try NameTemplate("{title}.{ext}"), tag: true))
        // A template no version could read is carried as it was; reading it names the episode.
        let error = try #require(throws: StoreError.self) { try upgraded.downloads.record(EpisodeKey(feed: "http://h/feed.xml", identity: "g2")) }
        guard case .unreadableRecord(let what) = error.kind else {
            Issue.record("expected an unreadable record, got \(error)")
            return
        }
        #expect(what.contains("\"E2\"") && what.contains("name-template"))
    }

    @Test func finishedBatchesLoseTheProxyAnEarlierVersionKeptInTheirRecord() throws {
        let directory = try TemporaryDirectory(prefix: "proxy-migration")
        let path = directory.path("state.sqlite")
        let store = try StateStore(path: path)
        let options = StoredSettings(values: ["proxy": .text("http://user:pr0xy-pw@127.0.0.1:3128"), "concurrency": .integer(2)], secretsFile: nil).text
        for (id, finished) in [(1, "1.0"), (2, "NULL")] {
            try store.connection.execute(
                "INSERT INTO batches (id, created_at, finished_at, options) VALUES (\(id), 0, \(finished), '\(options)')")
        }
        let before = try #require(StateStore.migrations.firstIndex { $0.summary.contains("keep no proxy") })
        try store.connection.execute("PRAGMA user_version = \(before)")

        let upgraded = try StateStore(path: path)
        try upgraded.migrate()
        let rows = try upgraded.connection.prepare("SELECT id, options FROM batches ORDER BY id")
        let kept = try rows.rows { row throws(SQLiteError) in (try row.int(at: 0), try row.string(at: 1)) }
        #expect(kept.count == 2)
        let finished = try StoredSettings(stored: kept[0].1)
        #expect(finished.settings["proxy"] == SettingValue.none && finished.settings["concurrency"] == .integer(2))
        #expect(!kept[0].1.contains("pr0xy-pw"))
        // The batch still to run goes through its proxy.
        #expect(try StoredSettings(stored: kept[1].1).settings["proxy"] == .text("http://user:pr0xy-pw@127.0.0.1:3128"))
    }
}
