import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// A show's page where a `<feed>` is asked for, through the built binary: loopback pages naming
/// their feeds (one, several, none, relative, past the size cap), and Apple and Overcast links
/// looked up on a loopback iTunes stand-in, never fetched.
@Suite(.timeLimit(.minutes(5))) struct FeedLinkCommandTests {
    private static let show = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Loopback Show</title>
          <item><title>Older</title><guid>ep-1</guid><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>
            <enclosure url="/audio/1.mp3" length="1000" type="audio/mpeg"/></item>
          <item><title>Newer</title><guid>ep-2</guid><pubDate>Mon, 16 Nov 2026 08:00:00 GMT</pubDate>
            <enclosure url="/audio/2.mp3" length="1000" type="audio/mpeg"/></item>
        </channel></rss>
        """.utf8)

    private static func page(head: String, body: String = "") -> ServerRoute {
        .fixed(body: Data("<!doctype html><html><head><title>The Show</title>\(head)</head><body>\(body)</body></html>".utf8),
               headers: [("Content-Type", "text/html; charset=utf-8")])
    }

    @Test func aPageWithOneRelativeAlternateLinkListsItsFeed() async throws {
        let server = try LoopbackServer(routes: [
            "/shows/daily/": Self.page(head: #"<link rel="alternate" type="application/rss+xml" href="../../feeds/daily.xml">"#),
            "/feeds/daily.xml": .fixed(body: Self.show),
        ])
        let podcast = try PodcastBinary()
        let result = try await podcast.run(["episodes", server.url("/shows/daily/")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Newer") && result.stdout.contains("Older"))
        #expect(result.stderrLines == [
            "note: \(server.url("/shows/daily/")) → \(server.url("/feeds/daily.xml")) (from the page's alternate link)",
        ])
        let listing = try #require(try StateStore(path: podcast.stateDirectory + "/state.sqlite").currentListing.load())
        #expect(listing.source == .feed(url: server.url("/feeds/daily.xml"), title: "Loopback Show"))
    }

    @Test func ofSeveralAlternatesThePodcastFeedIsReadAndTheOthersNamed() async throws {
        let server = try LoopbackServer(routes: [
            "/": Self.page(head: """
                <link rel="alternate" type="application/rss+xml" title="Blog" href="/feed/">
                <link rel="alternate" type="application/rss+xml" title="Comments" href="/comments/feed/">
                <link rel="alternate" type="application/rss+xml" title="Podcast" href="/podcast.xml">
                """),
            "/podcast.xml": .fixed(body: Self.show),
        ])
        let result = try await PodcastBinary().run(["episodes", server.url("/")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Newer"))
        #expect(result.stderrLines == [
            "note: \(server.url("/")) → \(server.url("/podcast.xml")) (the first podcast feed of the page's 3 alternate links); "
                + "it also names \(server.url("/feed/")), \(server.url("/comments/feed/"))",
        ])
        #expect(server.requestCount(path: "/feed/") == 0, "only the chosen feed is fetched")

        let json = try await PodcastBinary().run(["episodes", "--json", server.url("/")])
        #expect(json.status == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let feed = try #require(document["feed"] as? [String: Any])
        #expect(feed["url"] as? String == server.url("/podcast.xml"))
        let resolved = try #require(feed["resolved_from"] as? [String: Any])
        #expect(resolved["link"] as? String == server.url("/"))
        #expect(resolved["via"] as? String == "alternate-link")
        #expect(resolved["feeds"] as? [String] == [server.url("/feed/"), server.url("/comments/feed/"), server.url("/podcast.xml")])
    }

    @Test func aPageWithoutAlternatesFallsBackToAFeedAnchor() async throws {
        let server = try LoopbackServer(routes: [
            "/show": Self.page(head: "", body: #"<p><a href="/about">About</a> <a href="show.rss">Subscribe (RSS)</a>"#),
            "/show.rss": .fixed(body: Self.show),
        ])
        let result = try await PodcastBinary().run(["episodes", server.url("/show")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Newer"))
        #expect(result.stderrLines == ["note: \(server.url("/show")) → \(server.url("/show.rss")) (from a feed link on the page)"])
    }

    @Test func aPageNamingNoFeedIsOneLineSayingWhatWasLookedFor() async throws {
        let server = try LoopbackServer(routes: ["/show": Self.page(head: #"<link rel="stylesheet" href="/s.css">"#, body: "<a href=/about>About</a>")])
        let result = try await PodcastBinary().run(["episodes", server.url("/show")])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines == [
            "error: feed \(server.url("/show")): this is an HTML page that names no feed (no <link rel=\"alternate\"> of type "
                + "application/rss+xml or application/atom+xml, no <a href> ending in rss, xml or feed); "
                + "find the podcast's RSS feed and give its address",
        ])
    }

    @Test func aPageOverTheCapIsReadOnlyAsFarAsTheCap() async throws {
        let filler = String(repeating: "<p>words words words words words words words words words words</p>\n", count: 45_000)
        #expect(filler.utf8.count > 2 * 1024 * 1024)
        let server = try LoopbackServer(routes: [
            "/early": Self.page(head: #"<link rel="alternate" type="application/atom+xml" href="/feed.xml">"#, body: filler),
            "/late": Self.page(head: "", body: filler + #"<a href="/feed.xml">RSS</a>"#),
            "/feed.xml": .fixed(body: Self.show),
        ])
        let podcast = try PodcastBinary()
        let early = try await podcast.run(["episodes", server.url("/early")])
        #expect(early.status == 0, "\(early.stderr)")
        #expect(early.stdout.contains("Newer"))
        let late = try await podcast.run(["episodes", server.url("/late")])
        #expect(late.status == 1)
        #expect(late.stderrLines.count == 1)
        #expect(late.stderr.contains("names no feed") && late.stderr.contains("ending in rss, xml or feed in its first 2 MiB)"), "\(late.stderr)")
    }

    @Test func aChosenFeedThatFailsNamesThePageItCameFrom() async throws {
        let server = try LoopbackServer(routes: ["/show": Self.page(head: #"<link rel="alternate" type="application/rss+xml" href="/gone.xml">"#)])
        let result = try await PodcastBinary().run(["episodes", server.url("/show")])
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("error: feed \(server.url("/gone.xml")) (found from \(server.url("/show"))): "), "\(result.stderr)")
    }

    /// The iTunes stand-in answering every lookup with the loopback feed.
    private static func itunes() throws -> LoopbackServer {
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: show)])
        let answer = #"{"resultCount":1,"results":[{"kind":"podcast","collectionId":42,"collectionName":"Loopback Show","artistName":"Host","feedUrl":"\#(server.url("/feed.xml"))"}]}"#
        server.setRoute("/lookup", .fixed(body: Data(answer.utf8)))
        return server
    }

    @Test(arguments: [
        "https://podcasts.apple.com/us/podcast/loopback-show/id42?i=1000600000000",
        "https://itunes.apple.com/us/podcast/loopback-show/id42",
        "https://overcast.fm/itunes42/loopback-show",
    ])
    func appleAndOvercastLinksAreLookedUpByTheirID(link: String) async throws {
        let server = try Self.itunes()
        let result = try await PodcastBinary(itunes: server).run(["episodes", link])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Newer"))
        #expect(result.stderrLines == ["note: \(link) → \(server.url("/feed.xml")) (from the iTunes lookup of id 42)"])
        #expect(server.requests.map(\.target) == ["/lookup?id=42&entity=podcast", "/feed.xml"])
    }

    @Test func anAppleLinkWithoutAPodcastNamesTheLink() async throws {
        let server = try LoopbackServer(routes: ["/lookup": .fixed(body: Data(#"{"resultCount":0,"results":[]}"#.utf8))])
        let link = "https://podcasts.apple.com/us/podcast/nothing/id7"
        let result = try await PodcastBinary(itunes: server).run(["episodes", link])
        #expect(result.status != 0)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("\(link): no podcast with iTunes id 7"), "\(result.stderr)")
    }

    @Test func subscribeAndDownloadTakeAPageForItsFeed() async throws {
        let server = try LoopbackServer(routes: [
            "/show": Self.page(head: #"<link rel="alternate" type="application/rss+xml" href="/feed.xml">"#),
            "/feed.xml": .fixed(body: Self.show),
            "/audio/2.mp3": .fixed(body: Data(repeating: 7, count: 1000), headers: [("Content-Type", "audio/mpeg")]),
        ])
        let podcast = try PodcastBinary()
        let subscribed = try await podcast.run(["subscribe", "--no-download", server.url("/show")])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        #expect(subscribed.stderr.contains("note: \(server.url("/show")) → \(server.url("/feed.xml")) (from the page's alternate link)"))
        let store = try StateStore(path: podcast.stateDirectory + "/state.sqlite")
        #expect(try store.subscriptions.all().map(\.url) == [server.url("/feed.xml")])

        let downloaded = try await podcast.run(["download", server.url("/show"), "--episodes-dir", podcast.home.path("Episodes")])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        #expect(downloaded.stderr.contains("→ \(server.url("/feed.xml"))"))
        #expect(server.requestCount(path: "/audio/2.mp3") >= 1)
    }

    @Test func importLooksUpAppleAndOvercastEntriesAndSubscribesToTheirFeeds() async throws {
        let server = try Self.itunes()
        let answer = #"{"resultCount":1,"results":[{"kind":"podcast","collectionId":42,"collectionName":"Loopback Show","feedUrl":"\#(server.url("/feed.xml"))"}]}"#
        server.setRoute("/lookup", .handler { request in
            .fixed(body: Data((request.target.contains("id=42") ? answer : #"{"resultCount":0,"results":[]}"#).utf8))
        })
        let podcast = try PodcastBinary(itunes: server)
        let list = podcast.home.path("apps.opml")
        try """
            <?xml version="1.0"?><opml version="2.0"><body>
              <outline text="From Apple" type="rss" xmlUrl="https://podcasts.apple.com/us/podcast/loopback/id42"/>
              <outline text="From Overcast" type="rss" xmlUrl="https://overcast.fm/itunes42/loopback"/>
              <outline text="Gone from Apple" type="rss" xmlUrl="https://podcasts.apple.com/us/podcast/gone/id7"/>
              <outline text="Plain" type="rss" xmlUrl="https://feeds.example.com/plain.xml"/>
            </body></opml>
            """.write(toFile: list, atomically: true, encoding: .utf8)
        let imported = try await podcast.run(["import", list])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderrLines.contains(
            "note: \(list): https://podcasts.apple.com/us/podcast/loopback/id42 → \(server.url("/feed.xml")) (from the iTunes lookup of id 42)"))
        #expect(imported.stderrLines.contains(
            "note: \(list): https://overcast.fm/itunes42/loopback → \(server.url("/feed.xml")) (from the iTunes lookup of id 42)"))
        #expect(imported.stderrLines.contains { $0.hasPrefix("warning: \(list): https://podcasts.apple.com/us/podcast/gone/id7: no podcast with iTunes id 7") && $0.hasSuffix("; skipped") },
                "\(imported.stderr)")
        let store = try StateStore(path: podcast.stateDirectory + "/state.sqlite")
        #expect(Set(try store.subscriptions.all().map(\.url)) == [server.url("/feed.xml"), "https://feeds.example.com/plain.xml"])
        #expect(server.requestCount(path: "/feed.xml") == 0, "import fetches no feed")
    }
}
