import Foundation
import Glibc
import PodcastTestSupport
import Testing

/// Room before bytes when the server's answer gives no size of the file: answered chunked (or
/// cut by the connection's close), or compressed though identity was asked for (its
/// Content-Length counts compressed bytes, so `ResponseCheck` leaves its total unknown). No size
/// can be checked when such an answer comes, so it is checked as it grows
/// (`EpisodeDownload.grew`, each `Transfer.filledPiece`, the transfer waiting for the check):
/// it stops, paused with one line, while another piece still fits above `min-free-space`, and
/// the other episodes go on.
@Suite(.timeLimit(.minutes(5))) struct FreeSpaceUnknownLengthTests {
    @Test func aChunkedAnswerWithNoLengthAnywhereWaitsPausedAndLeavesTheFloor() async throws {
        try await TmpfsScenario.run(size: "24m", prefix: "free-space-chunked", suite: "FreeSpaceUnknownLengthTests") { episodes in
            let server = try LoopbackServer()
            let big = ResumeScenario.media(seed: 3, size: 30 * 1024 * 1024)
            let chunks = stride(from: 0, to: big.count, by: 256 * 1024).map { Data(big[$0..<min(big.count, $0 + 256 * 1024)]) }
            server.setRoute("/big.mp3", .chunked(chunks: chunks, headers: [("Content-Type", "audio/mpeg")]))
            try await Self.expectBigPausedAndSmallDownloaded(server: server, episodes: episodes)
        }
    }

    /// A compressed answer is checked as it grows but does not wait for the check
    /// (`Transfer.growsUnchecked`): when the batch's thread lags behind a body that decodes at
    /// loopback speed, the disk fills first, and every download stops with nothing lost.
    @Test func aCompressedAnswerWaitsPausedAndLeavesTheFloor() async throws {
        try await TmpfsScenario.run(size: "24m", prefix: "free-space-gzip", suite: "FreeSpaceUnknownLengthTests") { episodes in
            let server = try LoopbackServer()
            server.setRoute("/big.mp3", .gzipBomb(decodedSize: 30 * 1024 * 1024))
            await withKnownIssue("a compressed answer's room check races its writes", isIntermittent: true) {
                try await Self.expectBigPausedAndSmallDownloaded(server: server, episodes: episodes)
            }
        }
    }

    /// Downloads Big (the caller's route, no length in the feed) and Small (100 kB) into
    /// `episodes` (a 24 MiB tmpfs) with 8M to be left free: Big is paused with the reason, Small
    /// is downloaded, and the floor is still free.
    private static func expectBigPausedAndSmallDownloaded(server: LoopbackServer, episodes: String) async throws {
        let small = ResumeScenario.media(seed: 4, size: 100_000)
        ResumeScenario.serveFeed([
            ResumeScenario.Episode(title: "Big", path: "/big.mp3", length: nil),
            ResumeScenario.Episode(title: "Small", path: "/small.mp3", length: nil),
        ], on: server)
        server.setRoute("/small.mp3", .file(body: small, contentType: "audio/mpeg", etag: "\"small\""))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let download = try await podcast.run(
            ["download", "all", "--json", "--episodes-dir", episodes, "--min-free-space", "8M"])
        #expect(download.status == 1, "\(download.stderr)")
        #expect(!download.stderr.contains("stopped every download"), "\(download.stderr)")
        #expect(download.stderrLines.contains { $0.hasPrefix("paused episode 2 (Big): not enough room: the server gave no size") }, "\(download.stderr)")
        #expect(ResumeScenario.states(download.stdout)["Small"] == "downloaded", "\(download.stdout)")
        #expect(podcast.finishedBytes(titled: "Small", in: episodes) == small)
        var stats = statvfs()
        #expect(statvfs(episodes, &stats) == 0)
        let free = Int64(stats.f_bavail) * Int64(stats.f_frsize)
        #expect(free >= 8 * 1024 * 1024, "the floor is left free: \(free) bytes")
    }
}

/// The background worker checks the server's size as the foreground does: the episode that does
/// not fit is paused with its line in `status`, asked for once, and the worker ends.
@Suite(.timeLimit(.minutes(5))) struct FreeSpaceBackgroundTests {
    @Test func theWorkerPausesAnAnswerThatDoesNotFitAndEnds() async throws {
        try await TmpfsScenario.run(size: "4m", prefix: "free-space-worker", suite: "FreeSpaceBackgroundTests") { episodes in
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
}
