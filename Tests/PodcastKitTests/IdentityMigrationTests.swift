import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// The upgrade that makes fallback identities again by `EnclosureIdentity`: every record of an
/// episode without a guid keeps meaning that episode, so nothing is shown new or fetched again.
@Suite(.timeLimit(.minutes(5))) struct IdentityMigrationTests {
    private static let feed = "http://h/feed.xml"
    private static let tracked = "https://dts.podtrac.com/redirect.mp3/h.example/e1.mp3?token=abc"
    private static let old = "enclosure:" + tracked

    @Test func recordsMadeUnderTheOldRuleTakeTheNewIdentity() throws {
        let directory = try TemporaryDirectory(prefix: "identity-migration")
        let path = directory.path("state.sqlite")
        let renewed = StateStore.renewedIdentity(Self.old)
        #expect(renewed != Self.old)
        #expect(renewed == Episode(title: "E1").identity(enclosure: Self.tracked))

        let store = try StateStore(path: path)
        var record = DownloadRecord(feed: Self.feed, identity: Self.old, podcastTitle: "Show", title: "E1", url: Self.tracked, mediaType: nil, published: nil)
        record.state = .downloaded
        record.path = directory.path("e1.mp3")
        try store.downloads.save(record)
        try store.libraryFiles.save(LibraryFile(path: directory.path("e1.info.json"), feed: Self.feed, identity: Self.old, kind: .info, bytes: 2, sha256: nil))
        let guid = EpisodeKey(feed: Self.feed, identity: "guid-1")
        var other = record
        other.identity = guid.identity
        other.path = directory.path("g.mp3")
        try store.downloads.save(other)
        try store.currentListing.replace(with: Listing(source: .feed(url: Self.feed, title: "Show"), items: [
            ListingItem(number: 1, identity: Self.old, title: "E1", enclosureURL: Self.tracked),
        ]))
        // Back to the schema before the upgrade, then opened again by this build.
        let before = try #require(StateStore.migrations.firstIndex { $0.summary.contains("EnclosureIdentity") })
        try store.connection.execute("PRAGMA user_version = \(before)")

        let upgraded = try StateStore(path: path)
        try upgraded.migrate()
        #expect(try upgraded.downloads.record(EpisodeKey(feed: Self.feed, identity: renewed))?.path == directory.path("e1.mp3"))
        #expect(try upgraded.downloads.record(EpisodeKey(feed: Self.feed, identity: Self.old)) == nil)
        #expect(try upgraded.downloads.record(guid)?.path == directory.path("g.mp3"), "a guid is no fallback: left as it is")
        #expect(try upgraded.libraryFiles.files(of: EpisodeKey(feed: Self.feed, identity: renewed)).count == 1)
        #expect(try upgraded.currentListing.load()?.items.map(\.identity) == [renewed])
    }
}

private extension Episode {
    /// The identity `Episode` gives an item without a guid whose enclosure is at `url`.
    func identity(enclosure url: String) -> String {
        var episode = self
        episode.enclosure = Enclosure(url: url, type: nil, length: nil)
        return episode.identity
    }
}
