import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast status`: the progress buffer read while a worker writes it.
@Suite(.timeLimit(.minutes(5))) struct StatusCommandTests {
    @Test func statusJSONShowsProgressGrowingWhileTheWorkerRuns() async throws {
        let server = try LoopbackServer()
        // Held back: each attempt gets 80,000 bytes more (progress, so it is retried at once, never
        // given up), a second apart; 16 MB take minutes that way, so the gate is what finishes it.
        let episode = BackgroundScenario.show(count: 1, size: 16_000_000, stallAfter: 80_000, on: server)[0]
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "stall-timeout = 1\n")
        let guardian = WorkerGuard(podcast)
        #expect(try await podcast.run(["download", "1", "--background"]).status == 0)

        let bytes = { (status: [String: Any]) in BackgroundScenario.downloads(status)[episode.title]?["bytes"] as? Int ?? 0 }
        let first = try await BackgroundScenario.waitForStatus(podcast) { bytes($0) > 0 }
        let entry = try #require(BackgroundScenario.downloads(first)[episode.title])
        #expect(Set(entry.keys) == ["number", "guid", "title", "podcast", "state", "bytes", "total", "path", "error", "speed", "finished"])
        #expect(entry["number"] as? Int == 1)
        #expect(entry["finished"] is NSNull)
        #expect(entry["state"] as? String == "downloading")
        #expect(entry["guid"] as? String == "g-1")
        #expect(entry["podcast"] as? String == ResumeScenario.podcastTitle)
        #expect(entry["total"] as? Int == episode.body.count)
        #expect(entry["path"] is NSNull)
        let worker = try #require(first["worker"] as? [String: Any])
        #expect(worker["running"] as? Bool == true)
        #expect(worker["pid"] as? Int == BackgroundScenario.workerPID(podcast).map(Int.init))

        let later = try await BackgroundScenario.waitForStatus(podcast) { bytes($0) > bytes(first) }
        #expect(bytes(later) > bytes(first))
        #expect(BackgroundScenario.downloads(later)[episode.title]?["state"] as? String == "downloading")

        episode.gate.open()

        let done = try await BackgroundScenario.waitForStatus(podcast, upTo: .seconds(60)) {
            BackgroundScenario.downloads($0)[episode.title]?["state"] as? String == "downloaded"
        }
        let finished = try #require(BackgroundScenario.downloads(done)[episode.title])
        #expect(finished["bytes"] as? Int == episode.body.count)
        #expect(finished["path"] as? String == podcast.finishedFile(titled: episode.title))
        _ = guardian
    }

    @Test func statusOfAnEmptyHomeSaysSoAndSucceeds() async throws {
        let podcast = try PodcastBinary()
        let text = try await podcast.run(["status"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("worker: not running"))
        #expect(text.stdout.contains("no downloads"))
        let status = try await BackgroundScenario.status(podcast)
        #expect((status["downloads"] as? [Any])?.isEmpty == true)
    }

    @Test func watchWithNothingToWatchSaysSoAndSucceeds() async throws {
        let podcast = try PodcastBinary()
        let empty = try await podcast.run(["status", "--watch"])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stderr == "nothing to watch: no download is queued or running\n", "\(empty.stdout)\(empty.stderr)")

        // Finished downloads are no reason to watch either; plain status shows them.
        let server = try LoopbackServer()
        TerminalDisplayTests.serveOne(on: server)
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        #expect(try await podcast.run(["download", "1"]).status == 0)
        let done = try await podcast.run(["status", "--watch"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stderr == "nothing to watch: no download is queued or running (podcast status shows the others)\n", "\(done.stderr)")
    }

    @Test func watchOffATerminalPrintsChangesUntilTheQueueIsEmpty() async throws {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 2, size: 200_000, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "stall-timeout = 1\n")
        let guardian = WorkerGuard(podcast)
        #expect(try await podcast.run(["download", "all", "--background"]).status == 0)

        let watch = try podcast.start(["status", "--watch"])
        _ = try await BackgroundScenario.waitForStatus(podcast) { status in
            episodes.allSatisfy { (BackgroundScenario.downloads(status)[$0.title]?["bytes"] as? Int ?? 0) > 0 }
        }
        for episode in episodes { episode.gate.open() }
        let watched = await watch.finish(within: .seconds(60))
        #expect(watched.status == 0, "\(watched.stderr)")
        for episode in episodes {
            #expect(watched.stdout.contains("downloaded 100% \(ResumeScenario.podcastTitle): \(episode.title)"), "\(watched.stdout)")
            #expect(BackgroundScenario.sha256(finished: episode, in: podcast) == BackgroundScenario.sha256(episode.body))
        }
        #expect(watched.stdout.contains("batch 1 finished"))
        // Plain lines only, each printed when it changed: no cursor movement off a terminal.
        #expect(!watched.stdout.contains("\u{1B}["))
        _ = guardian
    }
}
