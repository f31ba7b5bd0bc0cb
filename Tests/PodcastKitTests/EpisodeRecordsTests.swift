import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// `EpisodeRecords.rekey` and `move`: an episode's records move together, and a
/// record that cannot move (the same episode has a download record under the new key already)
/// keeps its companions, so no file changes hands.
@Suite(.timeLimit(.minutes(5))) struct EpisodeRecordsTests {
    private static let feed = "http://h/feed.xml"

    private func store() throws -> (StateStore, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "episode-records")
        return (try StateStore(path: directory.path("state.sqlite")), directory)
    }

    private func download(_ identity: String, feed: String = feed, at path: String, in store: StateStore) throws {
        var record = DownloadRecord(feed: feed, identity: identity, podcastTitle: "Show", title: identity, url: "http://h/1.mp3", mediaType: nil, published: nil)
        record.state = .downloaded
        record.path = path
        try store.downloads.save(record)
        try store.libraryFiles.save(LibraryFile(path: path + ".srt", feed: feed, identity: identity, kind: .transcript, bytes: 1, sha256: nil))
    }

    @Test func anEpisodeTakesItsNewIdentityWithItsCompanions() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        try download("old", at: "/e/a.mp3", in: store)
        try store.write { () throws(SQLiteError) in
            try EpisodeRecords.rekey(feed: Self.feed, identity: "old", to: "new", in: store.connection)
        }
        #expect(try store.downloads.record(EpisodeKey(feed: Self.feed, identity: "new"))?.path == "/e/a.mp3")
        #expect(try store.libraryFiles.files(of: EpisodeKey(feed: Self.feed, identity: "new")).map(\.path) == ["/e/a.mp3.srt"])
    }

    @Test func aRecordThatCannotMoveKeepsItsCompanions() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        // The same episode downloaded twice, once under each identity (a token that changed).
        try download("old", at: "/e/a.mp3", in: store)
        try download("new", at: "/e/a (2).mp3", in: store)
        try store.write { () throws(SQLiteError) in
            try EpisodeRecords.rekey(feed: Self.feed, identity: "old", to: "new", in: store.connection)
        }
        #expect(try store.libraryFiles.files(of: EpisodeKey(feed: Self.feed, identity: "old")).map(\.path) == ["/e/a.mp3.srt"])
        #expect(try store.libraryFiles.files(of: EpisodeKey(feed: Self.feed, identity: "new")).map(\.path) == ["/e/a (2).mp3.srt"])
    }

    @Test func aMovedFeedTakesItsRecordsExceptThoseItHasAlready() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        let new = "http://h/moved.xml"
        try download("one", at: "/e/1.mp3", in: store)
        try download("two", at: "/e/2.mp3", in: store)
        try download("two", feed: new, at: "/e/2 (2).mp3", in: store)
        try store.write { () throws(SQLiteError) in
            try EpisodeRecords.move(fromFeed: Self.feed, toFeed: new, in: store.connection)
        }
        #expect(try store.libraryFiles.files(of: EpisodeKey(feed: new, identity: "one")).map(\.path) == ["/e/1.mp3.srt"])
        #expect(try store.libraryFiles.files(of: EpisodeKey(feed: Self.feed, identity: "two")).map(\.path) == ["/e/2.mp3.srt"])
        #expect(try store.libraryFiles.files(of: EpisodeKey(feed: new, identity: "two")).map(\.path) == ["/e/2 (2).mp3.srt"])
    }
}
