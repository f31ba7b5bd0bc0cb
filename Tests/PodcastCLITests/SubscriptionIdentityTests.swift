import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// One subscription per feed address however it is written (`FeedAddress`), through the built
/// binary: the spellings are one subscription, and its episodes are downloaded once.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionIdentityTests {
    @Test func threeSpellingsOfOneFeedAreOneSubscriptionDownloadedOnce() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        let url = show.feedURL
        let upper = "HTTP" + url.dropFirst("http".count)
        let subscribed = try await podcast.run(["subscribe", upper, url, url + "#newest", "--first", "2", "--json"])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        let rows = SubscriptionScenario.document(subscribed.stdout)["subscriptions"] as? [[String: Any]] ?? []
        #expect(rows.compactMap { $0["status"] as? String } == ["added", "exists", "exists"], "\(subscribed.stdout)")
        #expect(Set(rows.compactMap { $0["url"] as? String }) == [url])

        let listed = try await SubscriptionScenario.subscriptions(podcast)
        #expect(listed.count == 1, "\(listed)")
        #expect(listed[show.title]?["url"] as? String == url)

        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.mediaRequests.sorted() == show.paths(2, 3).sorted(), "each episode once")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(2, 3))

        let named = try await podcast.run(["update", url.uppercased().replacingOccurrences(of: "/HOUR/FEED.XML", with: "/hour/feed.xml")])
        #expect(named.status == 0, "an address in another case names the same subscription: \(named.stderr)")
    }

    /// A feed naming itself in another spelling (`itunes:new-feed-url`) has not moved: the
    /// subscription keeps its address and no update says otherwise.
    @Test func aFeedNamingItsOwnAddressRespelledHasNotMoved() async throws {
        let server = try LoopbackServer()
        let url = server.url("/feed.xml")
        let respelled = "HTTP" + url.dropFirst("http".count) + "#latest"
        server.setRoute("/episode.mp3", .file(body: Data("audio".utf8), contentType: "audio/mpeg", etag: "\"e\""))
        LibraryScenario.serveFeed(
            [.init(title: "Only", guid: "o1", date: "Mon, 02 Nov 2026 08:00:00 GMT", enclosure: server.url("/episode.mp3"), length: 5)],
            extra: "<itunes:new-feed-url>\(respelled)</itunes:new-feed-url>", on: server)
        let podcast = try SubscriptionScenario.home()
        let subscribed = try await podcast.run(["subscribe", url])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        #expect(!subscribed.stderr.contains("moved"), "\(subscribed.stderr)")

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(SubscriptionScenario.feeds(update.stdout)[LibraryScenario.podcastTitle]?["result"] as? String != "moved", "\(update.stdout)")
        #expect(try await SubscriptionScenario.subscriptions(podcast)[LibraryScenario.podcastTitle]?["url"] as? String == url)
    }

    /// OPML entries are feed addresses entering podcast too: respelled, they are the subscription
    /// there is; and `unsubscribe` finds it by any spelling.
    @Test func importAndUnsubscribeKnowTheAddressInAnySpelling() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        let upper = "HTTP" + show.feedURL.dropFirst("http".count)
        let file = podcast.home.path("feeds.opml")
        try Data("""
            <?xml version="1.0"?><opml version="2.0"><body>
            <outline text="Hour" xmlUrl="\(upper)"/><outline text="Hour again" xmlUrl="\(show.feedURL)#top"/>
            </body></opml>
            """.utf8).write(to: URL(filePath: file))
        let imported = try await podcast.run(["import", file, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let rows = SubscriptionScenario.document(imported.stdout)["subscriptions"] as? [[String: Any]] ?? []
        #expect(rows.compactMap { $0["status"] as? String } == ["exists", "exists"], "\(imported.stdout)")
        #expect(try await SubscriptionScenario.subscriptions(podcast).count == 1)

        let removed = try await podcast.run(["unsubscribe", upper + "#top"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try await SubscriptionScenario.subscriptions(podcast).isEmpty)
    }
}
