import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// libcurl and TagLib are loaded on first use: a command that does not need one runs without it,
/// and one that does says in a line what is missing. A broken installation is stood in for by a
/// file of the library's name that is no library, first on LD_LIBRARY_PATH.
@Suite(.timeLimit(.minutes(3))) struct LazyLibraryTests {
    /// A directory holding a file named `names` each, which the dynamic loader refuses.
    private static func brokenLibraries(_ names: [String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "broken-libraries")
        for name in names {
            try Data("not a shared object".utf8).write(to: URL(filePath: directory.path(name)))
        }
        return directory
    }

    @Test func withoutLibcurlAFileIsListedAndASearchFailsInOneLine() async throws {
        let broken = try Self.brokenLibraries(["libcurl.so.4"])
        let podcast = try PodcastBinary(environment: ["LD_LIBRARY_PATH": broken.path, "PODCAST_ITUNES_URL": "http://127.0.0.1:9/"])
        let feed = podcast.home.path("feed.xml")
        try Data("""
            <rss version="2.0"><channel><title>Offline</title>
            <item><title>One</title><guid>1</guid><enclosure url="http://127.0.0.1:9/one.mp3" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8).write(to: URL(filePath: feed))

        let listed = try await podcast.run(["episodes", feed, "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("\"title\":\"One\""), "\(listed.stdout)")

        let searched = try await podcast.run(["search", "tones"])
        #expect(searched.status == 1)
        let lines = searched.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(searched.stderr)")
        #expect(searched.stderr.hasPrefix("error: libcurl could not be loaded ("), "\(searched.stderr)")
        #expect(searched.stderr.contains("apt install libcurl4"), "\(searched.stderr)")
    }

    @Test(.enabled(if: LibraryScenario.hasFFmpeg, "ffmpeg is not installed (make setup installs it)"))
    func withoutTagLibATaggedDownloadKeepsTheFileUntaggedAndSaysWhy() async throws {
        let broken = try Self.brokenLibraries(["libtag_c.so.0", "libtag_c.so.2"])
        let server = try LoopbackServer()
        let media = try await LibraryScenario.media(codec: "libmp3lame", fileExtension: "mp3")
        server.setRoute("/tone.mp3", .file(body: media, contentType: "audio/mpeg"))
        LibraryScenario.serveFeed([
            LibraryScenario.Item(title: "Tone", guid: "t", date: "Mon, 02 Nov 2026 08:00:00 GMT", enclosure: server.url("/tone.mp3"), length: media.count),
        ], on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))

        let result = try await podcast.run(["download", "all", "--tag"], environment: ["LD_LIBRARY_PATH": broken.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("(Tone): kept untagged: TagLib could not be loaded ("), "\(result.stderr)")
        let path = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle + "/2026-11-02 Tone.mp3"
        #expect(FileManager.default.contents(atPath: path) == media, "the file is as served")
        let verified = try await podcast.run(["verify"])
        // Left untagged, it is recorded with the digest of its bytes as served.
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("checked 1 file: 1 intact"), "\(verified.stderr)")
    }
}
