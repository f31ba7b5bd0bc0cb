import Foundation
import Glibc
import PodcastTestSupport
import Testing

/// Room before bytes, through the built binary, on a real file system that is nearly full: a
/// 2 MiB tmpfs as the Episodes directory (where this process may mount one: root on CI).
@Suite(.timeLimit(.minutes(2))) struct FreeSpaceCommandTests {
    @Test func anEpisodeLargerThanTheRoomWaitsPausedAndTheOthersDownload() async throws {
        let scratch = try TemporaryDirectory(prefix: "free-space")
        let episodes = scratch.path("Episodes")
        try FileManager.default.createDirectory(atPath: episodes, withIntermediateDirectories: true)
        guard mount("tmpfs", episodes, "tmpfs", 0, "size=2m") == 0 else {
            print("FreeSpaceCommandTests: skipped, a tmpfs cannot be mounted here (\(String(cString: strerror(errno))))")
            return
        }
        defer { umount2(episodes, Int32(MNT_DETACH)) }

        let server = try LoopbackServer()
        let big = ResumeScenario.media(seed: 1, size: 3 * 1024 * 1024)
        let small = ResumeScenario.media(seed: 2, size: 100_000)
        server.setRoute("/feed.xml", .fixed(body: Data("""
            <rss><channel><title>Roomy</title>
            <item><title>Big</title><guid>big</guid><pubDate>Tue, 10 Nov 2026 08:00:00 GMT</pubDate>
            <enclosure url="/big.mp3" length="\(big.count)" type="audio/mpeg"/></item>
            <item><title>Small</title><guid>small</guid><pubDate>Tue, 10 Nov 2026 08:01:00 GMT</pubDate>
            <enclosure url="/small.mp3" length="\(small.count)" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8)))
        server.setRoute("/big.mp3", .fixed(body: big, headers: [("Content-Type", "audio/mpeg")]))
        server.setRoute("/small.mp3", .fixed(body: small, headers: [("Content-Type", "audio/mpeg")]))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))

        let download = try await podcast.run(["download", "all", "--json", "--episodes-dir", episodes, "--min-free-space", "256k"])
        let results = ResumeScenario.results(download.stdout)
        let byTitle = Dictionary(results.map { ($0["title"] as? String ?? "", $0) }) { first, _ in first }
        #expect(byTitle["Small"]?["state"] as? String == "downloaded", "\(download.stdout) \(download.stderr)")
        #expect(byTitle["Big"]?["state"] as? String == "paused", "\(download.stdout)")
        let why = byTitle["Big"]?["error"] as? String ?? ""
        #expect(why.contains("not enough room: it needs 3.0 MiB and") && why.contains("(min-free-space is 256k)"), "\(why)")
        #expect(!why.contains("\n"))
        #expect(ResumeScenario.requests(server, path: "/big.mp3").isEmpty, "no byte of it was asked for")
        #expect(FileManager.default.contents(atPath: episodes + "/Roomy/2026-11-10 Small.mp3") == small)
    }
}
