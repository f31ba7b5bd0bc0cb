import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast episodes` through the built binary against loopback servers and fixture files.
@Suite(.timeLimit(.minutes(5))) struct EpisodesCommandTests {
    private static let show = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
          <channel><title>Loopback Show</title><link>https://example.com/</link><language>en</language>
            <description>&lt;p&gt;About the show&lt;/p&gt;</description><itunes:author>Host</itunes:author>
            <itunes:image href="/art.jpg"/>
            <item><title>Older</title><guid isPermaLink="false">ep-1</guid><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="/audio/1.mp3" length="48200000" type="audio/mpeg"/><itunes:duration>45:07</itunes:duration>
              <itunes:season>1</itunes:season><itunes:episode>1</itunes:episode><itunes:episodeType>full</itunes:episodeType></item>
            <item><title>Newer</title><guid isPermaLink="false">ep-2</guid><pubDate>Mon, 16 Nov 2026 08:00:00 +0100</pubDate>
              <enclosure url="/audio/2.mp3" length="1000" type="audio/mpeg"/><itunes:duration>1:02:05</itunes:duration></item>
            <item><title>Notes only</title><guid>ep-3</guid></item>
          </channel>
        </rss>
        """.utf8)

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func tableListsNewestFirstWithDateDurationSizeAndState() async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: Self.show)])
        let result = try await PodcastBinary().run(["episodes", server.url("/feed.xml")])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            "#  Date        Duration      Size  State     Title",
            "1  2026-11-16   1:02:05   1.0 KiB  new       Newer",
            "2  2026-11-02     45:07  46.0 MiB  new       Older",
            "3                                  no media  Notes only",
        ])
    }

    @Test func jsonFollowsTheContract() async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: Self.show)])
        let result = try await PodcastBinary().run(["episodes", "--json", server.url("/feed.xml")])
        #expect(result.status == 0)
        let document = try json(result.stdout)
        let feed = try #require(document["feed"] as? [String: Any])
        #expect(Set(feed.keys) == ["title", "url", "link", "description", "author", "image", "language"])
        #expect(feed["title"] as? String == "Loopback Show")
        #expect(feed["url"] as? String == server.url("/feed.xml"))
        #expect(feed["description"] as? String == "About the show")
        #expect(feed["image"] as? String == server.url("/art.jpg"))
        let episodes = try #require(document["episodes"] as? [[String: Any]])
        let keys: Set = ["number", "guid", "title", "published", "duration", "description", "link", "image", "season",
                         "episode", "episode_type", "enclosure", "transcripts", "chapters_url", "state", "path"]
        #expect(episodes.allSatisfy { Set($0.keys) == keys })
        #expect(episodes.map { $0["number"] as? Int } == [1, 2, 3])
        #expect(episodes[0]["published"] as? String == "2026-11-16T07:00:00Z")
        #expect(episodes[0]["duration"] as? Int == 3725)
        #expect(episodes[1]["season"] as? Int == 1)
        #expect(episodes[1]["episode_type"] as? String == "full")
        let enclosure = try #require(episodes[1]["enclosure"] as? [String: Any])
        #expect(enclosure["url"] as? String == server.url("/audio/1.mp3"))
        #expect(enclosure["length"] as? Int == 48_200_000)
        #expect(episodes[2]["enclosure"] is NSNull)
        #expect(episodes[2]["published"] is NSNull)
        #expect(episodes.allSatisfy { $0["state"] as? String == "new" && $0["path"] is NSNull })
    }

    @Test func listingIsRememberedByIdentity() async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: Self.show)])
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", "--limit", "2", server.url("/feed.xml")]).status == 0)
        let listing = try #require(try StateStore(path: podcast.stateDirectory + "/state.sqlite").currentListing.load())
        #expect(listing.source == .feed(url: server.url("/feed.xml"), title: "Loopback Show"))
        #expect(listing.items.map(\.identity) == ["ep-2", "ep-1"])
        #expect(listing.items.map(\.number) == [1, 2])
    }

    @Test func numberFromTheLastSearchAndITunesIdBothFindTheFeed() async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: Self.show)])
        let answer = #"{"resultCount":1,"results":[{"kind":"podcast","collectionId":42,"collectionName":"Loopback Show","artistName":"Host","feedUrl":"\#(server.url("/feed.xml"))"}]}"#
        server.setRoute("/search", .fixed(body: Data(answer.utf8)))
        server.setRoute("/lookup", .fixed(body: Data(answer.utf8)))
        let podcast = try PodcastBinary(itunes: server)
        #expect(try await podcast.run(["search", "loopback"]).status == 0)
        let byNumber = try await podcast.run(["episodes", "1"])
        #expect(byNumber.status == 0)
        #expect(byNumber.stdout.contains("Newer"))
        let byID = try await podcast.run(["episodes", "itunes:42"])
        #expect(byID.status == 0)
        #expect(byID.stdout.contains("Newer"))
        #expect(server.requests.contains { $0.target == "/lookup?id=42&entity=podcast" })
    }

    @Test func localFileIsRead() async throws {
        let path = Fixtures.directory.appending(path: "own/feeds/serial-show.xml").path
        let result = try await PodcastBinary().run(["episodes", "--limit", "3", path])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == 4)
        #expect(result.stdout.contains("S02 E04 Smörgåsbord at the Slipway"))
    }

    @Test func bidiControlsInTitlesNeverReorderTheTable() async throws {
        let path = Fixtures.directory.appending(path: "own/feeds/bidi-title.xml").path
        let result = try await PodcastBinary().run(["episodes", path])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            "#  Date        Duration       Size  State  Title",
            "1  2026-11-16     30:00    1.9 MiB  new    Invoice fdp.exe explained",
            "2  2026-11-09     20:00  976.6 KiB  new    Isolated and overridden",
        ])
    }

    @Test func jsonKeepsBidiControlsEscaped() async throws {
        let path = Fixtures.directory.appending(path: "own/feeds/bidi-title.xml").path
        let result = try await PodcastBinary().run(["episodes", "--json", path])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""title":"Invoice \u202efdp.exe\u202c explained""#))
        #expect(!result.stdout.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) })
        let episodes = try #require(try json(result.stdout)["episodes"] as? [[String: Any]])
        #expect(episodes.map { $0["title"] as? String } == ["Invoice \u{202E}fdp.exe\u{202C} explained", "\u{2067}Isolated\u{2069} and \u{202E}overridden"])
    }

    @Test func feedLargerThan256MiBListsItsStartAndSaysSo() async throws {
        // Two items, then white space until the client hangs up (at most 320 MiB): the feed is
        // streamed, never held whole on either side.
        let server = try LoopbackServer(routes: ["/huge.xml": .raw { _, writer in
            try writer.sendHead([("Content-Type", "application/rss+xml"), ("Connection", "close")])
            try writer.send("<rss version=\"2.0\"><channel><title>Huge</title><item><title>One</title><guid>1</guid></item>"
                + "<item><title>Two</title><guid>2</guid></item>")
            let padding = [UInt8](repeating: UInt8(ascii: " "), count: 1024 * 1024)
            for _ in 0..<320 { try writer.send(padding) }
        }])
        let result = try await PodcastBinary().run(["episodes", server.url("/huge.xml")])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == 3)
        #expect(result.stderr == "warning: feed \(server.url("/huge.xml")) is larger than 256 MiB; listing the 2 episodes in its first 256 MiB\n")
    }

    /// `show` with a long show description, served in 2 KiB pieces a tenth of a second apart
    /// (about 2 s in all), so the fetch outlasts the second after which progress is shown.
    private static func slowShowRoute() -> ServerRoute {
        let padded = String(decoding: show, as: UTF8.self).replacingOccurrences(
            of: "<itunes:author>Host</itunes:author>",
            with: "<itunes:author>Host</itunes:author><itunes:summary>" + String(repeating: "z", count: 40 * 1024) + "</itunes:summary>")
        return .slow(body: Data(padded.utf8), chunkSize: 2048, interval: .milliseconds(100))
    }

    @Test func slowFetchShowsNoProgressOffATerminal() async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": Self.slowShowRoute()])
        let result = try await PodcastBinary().run(["episodes", server.url("/feed.xml")])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.split(separator: "\n").count == 4)
    }

    @Test func slowFetchOnATerminalShowsBytesSoFarAndClearsThemBeforeTheTable() async throws {
        // script(1) runs podcast on a pseudo-terminal: stdout and stderr are both that terminal.
        let server = try LoopbackServer(routes: ["/feed.xml": Self.slowShowRoute()])
        let podcast = try PodcastBinary()
        let command = "'\(builtExecutable(named: "podcast").path)' episodes '\(server.url("/feed.xml"))'"
        let process = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": podcast.home.path, "PODCAST_HOME": podcast.stateDirectory, "COLUMNS": "100"])
        let result = await process.finish(within: .seconds(60))
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("\r\u{1B}[2Kfetching \(server.url("/feed.xml")): "))
        // The last progress line is cleared, and the table starts where it was.
        #expect(result.stdout.contains(" so far\r\u{1B}[2K#  Date        Duration"))
    }

    @Test func sloppyFeedListsWhatParsedWithAWarning() async throws {
        let broken = String(decoding: Self.show, as: UTF8.self).replacingOccurrences(of: "<item><title>Notes only</title><guid>ep-3</guid></item>", with: "<item><title>Cut")
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: Data(broken.utf8))])
        let result = try await PodcastBinary().run(["episodes", server.url("/feed.xml")])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Newer"))
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("warning: feed \(server.url("/feed.xml")) has broken XML at line"))
    }

    // MARK: Failures

    @Test(arguments: [
        (ServerRoute.status(404), "server answered 404 Not Found"),
        (.fixed(body: Data("<html><body>Welcome</body></html>".utf8)), "this is an HTML page that names no feed"),
        (.fixed(body: Data("{\"items\": []}".utf8)), "this is JSON, not an RSS or Atom feed"),
        (.fixed(body: Data()), "the server sent an empty document"),
        (.fixed(body: Data("<rss><channel><title>x</title><item><title>a</chanel>".utf8)), "broken XML at line 1:"),
    ])
    func unusableFeedExits1WithOneLine(route: ServerRoute, message: String) async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": route])
        let result = try await PodcastBinary().run(["episodes", server.url("/feed.xml")])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("error: feed \(server.url("/feed.xml")): "))
        #expect(result.stderr.contains(message))
    }

    @Test func missingFileExits1() async throws {
        let result = try await PodcastBinary().run(["episodes", "/nonexistent/feed.xml"])
        #expect(result.status == 1)
        #expect(result.stderrLines == ["error: feed /nonexistent/feed.xml: open /nonexistent/feed.xml: No such file or directory; check the path"])
    }

    @Test func numberWithoutASearchIsBadUsage() async throws {
        let result = try await PodcastBinary().run(["episodes", "3"])
        #expect(result.status == 64)
        #expect(result.stderrLines == ["error: there is no search to take number 3 from; run podcast search first, or give a feed URL"])
    }

    @Test func numberBeyondTheLastSearchIsBadUsage() async throws {
        let server = try LoopbackServer(routes: ["/search": .fixed(body: try Fixtures.data("own/itunes/search_podcasts_10.txt"))])
        let podcast = try PodcastBinary(itunes: server)
        #expect(try await podcast.run(["search", "morning"]).status == 0)
        let result = try await podcast.run(["episodes", "11"])
        #expect(result.status == 64)
        #expect(result.stderrLines == ["error: there is no result 11 in the last search (\"morning\": 1–10)"])
    }

    @Test func zeroLimitIsBadUsage() async throws {
        let result = try await PodcastBinary().run(["episodes", "--limit", "0", "x.xml"])
        #expect(result.status == 64)
        #expect(result.stderrLines.count == 1)
    }
}
