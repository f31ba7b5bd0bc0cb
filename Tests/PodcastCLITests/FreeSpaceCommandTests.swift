import Foundation
import Glibc
import PodcastTestSupport
import Testing

/// Room before bytes, through the built binary, on a real file system that is nearly full: a
/// tmpfs of a few MiB as the Episodes directory (where this process may mount one: root on CI).
@Suite(.timeLimit(.minutes(5))) struct FreeSpaceCommandTests {
    @Test func anEpisodeLargerThanTheRoomWaitsPausedAndTheOthersDownload() async throws {
        try await TmpfsScenario.run(size: "2m", prefix: "free-space", suite: "FreeSpaceCommandTests") { episodes in
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

    /// A feed that gives no length, or a placeholder one, does not let an episode fill the disk:
    /// the server's Content-Length is checked when it answers, before a byte of the body is
    /// written, and the episode waits paused with the reason; the others go on, and `podcast
    /// resume` fetches it once there is room.
    @Test func theServersLengthIsCheckedBeforeTheBodyWhenTheFeedGivesNone() async throws {
        try await TmpfsScenario.run(size: "4m", prefix: "free-space-answer", suite: "FreeSpaceCommandTests") { episodes in
            let server = try LoopbackServer()
            let big = ResumeScenario.media(seed: 3, size: 6 * 1024 * 1024)
            let small = ResumeScenario.media(seed: 4, size: 100_000)
            ResumeScenario.serveFeed([
                ResumeScenario.Episode(title: "Big", path: "/big.mp3", length: nil),
                ResumeScenario.Episode(title: "Placeholder", path: "/placeholder.mp3", length: 1),
                ResumeScenario.Episode(title: "Small", path: "/small.mp3", length: nil),
            ], on: server)
            server.setRoute("/big.mp3", .file(body: big, contentType: "audio/mpeg", etag: "\"big\""))
            server.setRoute("/placeholder.mp3", .file(body: big, contentType: "audio/mpeg", etag: "\"big\""))
            server.setRoute("/small.mp3", .file(body: small, contentType: "audio/mpeg", etag: "\"small\""))
            let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))

            let download = try await podcast.run(["download", "all", "--episodes-dir", episodes, "--min-free-space", "256k"])
            #expect(download.status == 1, "paused episodes leave the batch unfinished: \(download.stderr)")
            let reasons = download.stderrLines.filter { $0.contains("not enough room: it needs 6.0 MiB and") }
            #expect(reasons.count == 2, "one line for each of the two: \(download.stderr)")
            #expect(reasons.allSatisfy { $0.contains("(min-free-space is 256k); make room or lower min-free-space, then podcast resume") })
            #expect(Self.largestFile(under: episodes) < 200_000, "no body past the room was written")
            let folder = episodes + "/" + ResumeScenario.podcastTitle
            #expect(FileManager.default.contents(atPath: folder + "/2026-11-10 Small.mp3") == small)
            #expect(!FileManager.default.fileExists(atPath: folder + "/2026-11-10 Big.mp3"))

            // Still no room: the server's size is known now, so nothing is asked of it.
            let asked = ResumeScenario.requests(server, path: "/big.mp3").count
            let stillFull = try await podcast.run(["resume", "--episodes-dir", episodes, "--min-free-space", "256k"])
            #expect(stillFull.status == 1 && stillFull.stderr.contains("not enough room: it needs 6.0 MiB"), "\(stillFull.stderr)")
            #expect(ResumeScenario.requests(server, path: "/big.mp3").count == asked)

            #expect(mount("tmpfs", episodes, "tmpfs", UInt(MS_REMOUNT), "size=32m") == 0, "\(String(cString: strerror(errno)))")
            let resumed = try await podcast.run(["resume", "--json", "--episodes-dir", episodes, "--min-free-space", "256k"])
            #expect(resumed.status == 0, "\(resumed.stdout) \(resumed.stderr)")
            #expect(ResumeScenario.states(resumed.stdout) == ["Big": "downloaded", "Placeholder": "downloaded"], "\(resumed.stdout)")
            for title in ["Big", "Placeholder"] {
                let file = FileManager.default.contents(atPath: folder + "/2026-11-10 \(title).mp3") ?? Data()
                #expect(BackgroundScenario.sha256(file) == BackgroundScenario.sha256(big), "\(title): \(file.count) bytes")
            }
        }
    }

    /// A partial file whose size only the server's 206 tells (its first answer was chunked) is
    /// checked on that answer for the rest it needs: it waits paused with its bytes untouched,
    /// and `podcast resume` continues it with a range once there is room.
    @Test func aContinuedAnswerThatDoesNotFitKeepsThePartialFileForResume() async throws {
        try await TmpfsScenario.run(size: "32m", prefix: "free-space-partial", suite: "FreeSpaceCommandTests") { episodes in
            let server = try LoopbackServer()
            let big = ResumeScenario.media(seed: 7, size: 6 * 1024 * 1024)
            let kept = 1024 * 1024
            ResumeScenario.serveFeed([ResumeScenario.Episode(title: "Big", path: "/big.mp3", length: nil)], on: server)
            // The first answer gives no length and breaks after 1 MiB; ranges are refused for now.
            let broken = ServerRoute.garbageChunked(valid: big.prefix(kept), headers: [("ETag", "\"big\"")])
            server.setRoute("/big.mp3", .handler { request in request.header("Range") == nil ? broken : .status(503) })
            let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "retries = 1\n")
            let first = try await podcast.run(["download", "all", "--episodes-dir", episodes, "--min-free-space", "256k"])
            #expect(first.status == 1, "\(first.stderr)")
            let partial = try #require(podcast.partialFiles(in: episodes).first, "\(first.stderr)")
            #expect(FileManager.default.contents(atPath: partial.path) == big.prefix(kept))

            // The server now serves ranges: its 206 says 6 MiB, 5 MiB more than the partial holds.
            server.setRoute("/big.mp3", .file(body: big, contentType: "audio/mpeg", etag: "\"big\""))
            #expect(mount("tmpfs", episodes, "tmpfs", UInt(MS_REMOUNT), "size=4m") == 0, "\(String(cString: strerror(errno)))")
            let full = try await podcast.run(["resume", "--episodes-dir", episodes, "--min-free-space", "256k"])
            #expect(full.status == 1, "\(full.stderr)")
            #expect(full.stderrLines.contains { $0.contains("not enough room: it needs 5.0 MiB and") }, "\(full.stderr)")
            #expect(ResumeScenario.requests(server, path: "/big.mp3").last?.header("Range") == ResumeScenario.range(from: kept))
            #expect(FileManager.default.contents(atPath: partial.path) == big.prefix(kept), "the partial file is as it was")

            #expect(mount("tmpfs", episodes, "tmpfs", UInt(MS_REMOUNT), "size=32m") == 0, "\(String(cString: strerror(errno)))")
            let resumed = try await podcast.run(["resume", "--episodes-dir", episodes, "--min-free-space", "256k"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(ResumeScenario.requests(server, path: "/big.mp3").last?.header("Range") == ResumeScenario.range(from: kept), "continued")
            let file = FileManager.default.contents(atPath: episodes + "/" + ResumeScenario.podcastTitle + "/2026-11-10 Big.mp3") ?? Data()
            #expect(BackgroundScenario.sha256(file) == BackgroundScenario.sha256(big), "\(file.count) bytes")
        }
    }

    /// Two episodes that each fit but not together: the second to answer finds the room the first
    /// still needs taken, and waits paused instead of both filling the disk.
    @Test func twoRunningEpisodesThatDoNotFitTogetherDoNotBothGoOn() async throws {
        try await TmpfsScenario.run(size: "4m", prefix: "free-space-running", suite: "FreeSpaceCommandTests") { episodes in
            let server = try LoopbackServer()
            let first = ResumeScenario.media(seed: 5, size: 2 * 1024 * 1024)
            let second = ResumeScenario.media(seed: 6, size: 2 * 1024 * 1024)
            ResumeScenario.serveFeed([
                ResumeScenario.Episode(title: "First", path: "/first.mp3", length: nil),
                ResumeScenario.Episode(title: "Second", path: "/second.mp3", length: nil),
            ], on: server)
            server.setRoute("/first.mp3", .file(body: first, contentType: "audio/mpeg", etag: "\"first\""))
            server.setRoute("/second.mp3", .file(body: second, contentType: "audio/mpeg", etag: "\"second\""))
            let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))

            // Alone, each leaves 2 MiB of 4 free, over the 1 MiB floor; together they would leave none.
            let download = try await podcast.run(["download", "all", "--json", "--episodes-dir", episodes, "--min-free-space", "1m"])
            #expect(download.status == 1, "\(download.stdout) \(download.stderr)")
            let results = ResumeScenario.results(download.stdout)
            let done = results.filter { $0["state"] as? String == "downloaded" }
            let paused = results.filter { $0["state"] as? String == "paused" }
            #expect(done.count == 1 && paused.count == 1, "\(download.stdout)")
            #expect(paused.allSatisfy { ($0["error"] as? String ?? "").hasPrefix("not enough room: it needs 2.0 MiB and") }, "\(download.stdout)")
            let folder = episodes + "/" + ResumeScenario.podcastTitle
            let bodies = ["First": first, "Second": second]
            for result in done {
                let title = result["title"] as? String ?? ""
                #expect(FileManager.default.contents(atPath: folder + "/2026-11-10 \(title).mp3") == bodies[title], "\(title)")
            }
            #expect(Self.largestFile(under: episodes + "/.partial") < 200_000, "the paused one wrote no body")

            #expect(mount("tmpfs", episodes, "tmpfs", UInt(MS_REMOUNT), "size=32m") == 0, "\(String(cString: strerror(errno)))")
            let resumed = try await podcast.run(["resume", "--json", "--episodes-dir", episodes, "--min-free-space", "1m"])
            #expect(resumed.status == 0, "\(resumed.stdout) \(resumed.stderr)")
            for (title, body) in bodies {
                let file = FileManager.default.contents(atPath: folder + "/2026-11-10 \(title).mp3") ?? Data()
                #expect(BackgroundScenario.sha256(file) == BackgroundScenario.sha256(body), "\(title): \(file.count) bytes")
            }
        }
    }


    /// The size of the largest regular file under `folder`, at any depth (0: none).
    private static func largestFile(under folder: String) -> Int {
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return files.map { name in
            ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name))?[.size] as? Int) ?? 0
        }.max() ?? 0
    }
}
