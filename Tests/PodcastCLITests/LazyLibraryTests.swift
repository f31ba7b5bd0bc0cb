import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// TagLib is loaded on first use: a command that does not need it runs without it, and `--tag`
/// says in a line why it kept a file untagged. A broken installation is stood in for by a file of
/// the library's name that is no library, first on LD_LIBRARY_PATH.
@Suite(.timeLimit(.minutes(5))) struct LazyLibraryTests {
    /// A directory holding a file named `names` each, which the dynamic loader refuses.
    private static func brokenLibraries(_ names: [String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "broken-libraries")
        for name in names {
            try Data("not a shared object".utf8).write(to: URL(filePath: directory.path(name)))
        }
        return directory
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
