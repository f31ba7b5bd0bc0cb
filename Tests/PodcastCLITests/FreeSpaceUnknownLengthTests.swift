import Foundation
import Glibc
import PodcastTestSupport
import Testing

/// Room before bytes when the server's answer gives no size of the file: answered chunked (or
/// cut by the connection's close), or compressed though identity was asked for (its
/// Content-Length counts compressed bytes, so `ResponseCheck` leaves its total unknown). Such
/// an answer never waits for the go-ahead (`Transfer` sets `awaitsGoAhead` only with a total)
/// and `FreeSpaceCheck.problem` has no size to check, so with a feed that leaves the length out
/// the body is written until the disk is full, and the batch stops every download. README says
/// such a feed "cannot fill the disk". Known issues until a check runs while such a body is
/// written; each test states what should happen.
@Suite(.timeLimit(.minutes(2))) struct FreeSpaceUnknownLengthTests {
    @Test func aChunkedAnswerWithNoLengthAnywhereShouldWaitPausedNotFillTheDisk() async throws {
        try await Self.onTmpfs(size: "4m", prefix: "free-space-chunked") { episodes in
            let server = try LoopbackServer()
            let big = ResumeScenario.media(seed: 3, size: 6 * 1024 * 1024)
            let chunks = stride(from: 0, to: big.count, by: 256 * 1024).map { Data(big[$0..<min(big.count, $0 + 256 * 1024)]) }
            server.setRoute("/big.mp3", .chunked(chunks: chunks, headers: [("Content-Type", "audio/mpeg")]))
            let download = try await Self.downloadBigAndSmall(server: server, episodes: episodes)
            withKnownIssue("an answer of unknown length is written until the disk is full") {
                #expect(!download.stderr.contains("stopped every download"), "\(download.stderr)")
                #expect(download.stderrLines.contains { $0.hasPrefix("paused episode 2 (Big): not enough room") }, "\(download.stderr)")
            }
        }
    }

    @Test func aCompressedAnswerShouldWaitPausedNotFillTheDisk() async throws {
        try await Self.onTmpfs(size: "4m", prefix: "free-space-gzip") { episodes in
            let server = try LoopbackServer()
            server.setRoute("/big.mp3", .gzipBomb(decodedSize: 6 * 1024 * 1024))
            let download = try await Self.downloadBigAndSmall(server: server, episodes: episodes)
            withKnownIssue("a compressed answer's size is unknown, so it is written until the disk is full") {
                #expect(!download.stderr.contains("stopped every download"), "\(download.stderr)")
                #expect(ResumeScenario.states(download.stdout)["Small"] == "downloaded", "\(download.stdout)")
            }
        }
    }

    /// Downloads Big (the caller's route, no length in the feed) and Small (100 kB) into
    /// `episodes` with 256k to be left free; the result, which is never a success.
    private static func downloadBigAndSmall(server: LoopbackServer, episodes: String) async throws -> ChildProcess.Result {
        let small = ResumeScenario.media(seed: 4, size: 100_000)
        ResumeScenario.serveFeed([
            ResumeScenario.Episode(title: "Big", path: "/big.mp3", length: nil),
            ResumeScenario.Episode(title: "Small", path: "/small.mp3", length: nil),
        ], on: server)
        server.setRoute("/small.mp3", .file(body: small, contentType: "audio/mpeg", etag: "\"small\""))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let download = try await podcast.run(["download", "all", "--json", "--episodes-dir", episodes, "--min-free-space", "256k"])
        #expect(download.status == 1, "\(download.stderr)")
        return download
    }

    /// Runs `body` with a fresh tmpfs of `size` mounted as the Episodes directory, unmounted
    /// after; skipped, with a line saying why, where this process may not mount one.
    private static func onTmpfs(size: String, prefix: String, _ body: (String) async throws -> Void) async throws {
        let scratch = try TemporaryDirectory(prefix: prefix)
        let episodes = scratch.path("Episodes")
        try FileManager.default.createDirectory(atPath: episodes, withIntermediateDirectories: true)
        guard mount("tmpfs", episodes, "tmpfs", 0, "size=\(size)") == 0 else {
            print("FreeSpaceUnknownLengthTests: skipped, a tmpfs cannot be mounted here (\(String(cString: strerror(errno))))")
            return
        }
        defer { umount2(episodes, Int32(MNT_DETACH)) }
        try await body(episodes)
    }
}

/// The background worker checks the server's size as the foreground does: the episode that does
/// not fit is paused with its line in `status`, asked for once, and the worker ends.
@Suite(.timeLimit(.minutes(2))) struct FreeSpaceBackgroundTests {
    @Test func theWorkerPausesAnAnswerThatDoesNotFitAndEnds() async throws {
        let scratch = try TemporaryDirectory(prefix: "free-space-worker")
        let episodes = scratch.path("Episodes")
        try FileManager.default.createDirectory(atPath: episodes, withIntermediateDirectories: true)
        guard mount("tmpfs", episodes, "tmpfs", 0, "size=4m") == 0 else {
            print("FreeSpaceBackgroundTests: skipped, a tmpfs cannot be mounted here (\(String(cString: strerror(errno))))")
            return
        }
        defer { umount2(episodes, Int32(MNT_DETACH)) }
        let server = try LoopbackServer()
        let big = ResumeScenario.media(seed: 3, size: 6 * 1024 * 1024)
        let small = ResumeScenario.media(seed: 4, size: 100_000)
        ResumeScenario.serveFeed([
            ResumeScenario.Episode(title: "Big", path: "/big.mp3", length: nil),
            ResumeScenario.Episode(title: "Small", path: "/small.mp3", length: nil),
        ], on: server)
        server.setRoute("/big.mp3", .file(body: big, contentType: "audio/mpeg", etag: "\"big\""))
        server.setRoute("/small.mp3", .file(body: small, contentType: "audio/mpeg", etag: "\"small\""))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let guardian = WorkerGuard(podcast)

        let launched = try await podcast.run(["download", "all", "--background", "--episodes-dir", episodes, "--min-free-space", "256k"])
        #expect(launched.status == 0, "\(launched.stderr)")
        let status = try await BackgroundScenario.waitForStatus(podcast) { status in
            let downloads = BackgroundScenario.downloads(status)
            return downloads["Big"]?["state"] as? String == "paused" && downloads["Small"]?["state"] as? String == "downloaded"
        }
        let why = BackgroundScenario.downloads(status)["Big"]?["error"] as? String ?? ""
        #expect(why.hasPrefix("not enough room: it needs 6.0 MiB and"), "\(status)")
        #expect(try await ResumeScenario.wait(upTo: .seconds(30)) { !BackgroundScenario.workerRuns(podcast) }, "the worker ends")
        #expect(ResumeScenario.requests(server, path: "/big.mp3").count == 1, "asked once, not again and again")
        _ = guardian
    }
}
