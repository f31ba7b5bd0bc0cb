import Foundation
import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Testing

/// `podcast:integrity` through the binary: a file that matches the feed's digest is kept; one
/// that does not is fetched once more from the start, then fails and is not kept.
@Suite(.timeLimit(.minutes(5))) struct IntegrityDownloadTests {
    private static let media = ResumeScenario.media(seed: 41, size: 300_000)

    /// Serves a feed whose one episode's alternate enclosure (listing the enclosure's URL) carries
    /// `digest`, and the media at /media/checked.mp3.
    private static func serve(digest: String, on server: LoopbackServer) {
        let url = server.url("/media/checked.mp3")
        let feed = """
            <rss xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>\(ResumeScenario.podcastTitle)</title>
            <item><title>Checked</title><guid>checked</guid><pubDate>Mon, 10 Nov 2026 08:00:00 GMT</pubDate>
            <enclosure url="\(url)" length="\(media.count)" type="audio/mpeg"/>
            <podcast:alternateEnclosure type="audio/mpeg" length="\(media.count)" default="true">
              <podcast:source uri="\(url)"/>
              <podcast:integrity type="sri" value="\(digest)"/>
            </podcast:alternateEnclosure></item></channel></rss>
            """
        server.setRoute("/feed.xml", .fixed(body: Data(feed.utf8)))
        server.setRoute("/media/checked.mp3", .file(body: media, contentType: "audio/mpeg", etag: "\"v1\""))
    }

    private static func sri(_ bytes: Data) -> String {
        var hasher = SHA2(.sha256)
        bytes.withUnsafeBytes { hasher.update($0) }
        return "sha256-" + Data(hasher.finish()).base64EncodedString()
    }

    @Test func aFileMatchingTheFeedsDigestIsKept() async throws {
        let server = try LoopbackServer()
        Self.serve(digest: Self.sri(Self.media), on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let result = try await podcast.run(["download", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: "Checked") == Self.media)
        #expect(ResumeScenario.requests(server, path: "/media/checked.mp3").count == 1)
    }

    @Test func aMismatchIsFetchedOnceMoreThenFailsAndNothingIsKept() async throws {
        let server = try LoopbackServer()
        Self.serve(digest: Self.sri(Data("not the episode".utf8)), on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let result = try await podcast.run(["download", "1", "--json"])
        #expect(result.status == 1)
        #expect(ResumeScenario.states(result.stdout) == ["Checked": "failed"])
        #expect(result.stderr.contains("does not match the feed's sha256 digest: fetching it again"))
        #expect(result.stderr.contains("podcast:integrity"))
        #expect(ResumeScenario.requests(server, path: "/media/checked.mp3").count == 2)
        #expect(podcast.finishedFile(titled: "Checked") == nil)
        #expect(podcast.partialFiles().allSatisfy { $0.size == 0 })
        // Failed for good: resume leaves it alone.
        let again = try await podcast.run(["resume", "--json"])
        #expect(again.status == 0)
        #expect(ResumeScenario.requests(server, path: "/media/checked.mp3").count == 2)
    }
}
