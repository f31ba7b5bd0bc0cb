import Foundation
import PodcastKit
import PodcastTestSupport
import PodcastText
import Testing

/// `podcast show <n>`: one episode's details and show notes, from the feed podcast keeps.
@Suite(.timeLimit(.minutes(5))) struct ShowCommandTests {
    private static let feed = Data("""
        <rss version="2.0"><channel><title>Notes Show</title>
        <item><title>With Notes</title><guid>n-1</guid><link>https://example.com/ep1</link>
        <pubDate>Mon, 16 Nov 2026 08:00:00 GMT</pubDate><itunes:duration xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">1:05</itunes:duration>
        <description>&lt;p&gt;We talk about the tides and the moon, and then about everything else that moves.&lt;/p&gt;&lt;p&gt;Second part.&lt;/p&gt;</description>
        <enclosure url="/media/n1.mp3" length="2048" type="audio/mpeg"/></item>
        </channel></rss>
        """.utf8)

    @Test func showGivesTheDetailsAndTheNotesWrappedToTheWidth() async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: Self.feed)])
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        server.setRoute("/feed.xml", .status(500))
        let result = try await podcast.run(["show", "1"], environment: ["COLUMNS": "40"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines.prefix(8)) == [
            "Title:     With Notes",
            "Podcast:   Notes Show",
            "Published: 2026-11-16",
            "Duration:  1:05",
            "Size:      2.0 KiB (audio/mpeg)",
            "Media:     \(server.url("/media/n1.mp3"))",
            "Link:      https://example.com/ep1",
            "State:     new",
        ])
        let notes = lines.dropFirst(9).filter { !$0.isEmpty }
        #expect(notes.joined(separator: " ").hasPrefix("We talk about the tides and the moon, and then about everything else that moves."))
        #expect(notes.allSatisfy { DisplayWidth.of($0) <= 39 }, "\(notes)")
        #expect(notes.count >= 3)
        // Read from the kept copy: the server, failing now, was not asked again.
        #expect(server.requestCount(path: "/feed.xml") == 1)
    }

    @Test func showKeepsTheAddressesOfLinksInTheNotes() async throws {
        let feed = Data("""
            <rss version="2.0"><channel><title>Notes Show</title>
            <item><title>With Links</title><guid>l-1</guid>
            <description>&lt;p&gt;Read &lt;a href="https://example.com/notes?a=1&amp;amp;b=2"&gt;the notes&lt;/a&gt; and visit &lt;a href="https://example.com/"&gt;https://example.com/&lt;/a&gt;.&lt;/p&gt;</description>
            <enclosure url="/media/l1.mp3" length="2048" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8)
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: feed)])
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["show", "1"], environment: ["COLUMNS": "200"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("\n\nRead the notes (https://example.com/notes?a=1&b=2) and visit https://example.com/.\n"), "\(result.stdout)")
    }

    @Test func showJSONAndANumberNotListed() async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: Self.feed)])
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let json = try await podcast.run(["show", "1", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(Set(document.keys) == ["number", "guid", "title", "podcast", "published", "duration", "size", "type", "url", "link", "state", "path", "description"])
        #expect(document["duration"] as? Int == 65)
        let missing = try await podcast.run(["show", "7"])
        #expect(missing.status == 64)
        #expect(missing.stderr == "error: there is no episode 7 in the last listing (1–1); run podcast episodes <feed> to list them again\n")
    }
}
