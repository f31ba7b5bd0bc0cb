import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast pause`, `podcast resume` and `podcast cancel` from another process, on the worker's
/// downloads and on a foreground download.
@Suite(.timeLimit(.minutes(5))) struct PauseCancelTests {
    /// Two held-back episodes of 600,000 bytes the worker is downloading, each with 20,000 bytes
    /// or more on disk; oldest first, as `BackgroundScenario.show` returns them.
    private func twoRunningInTheBackground() async throws -> (LoopbackServer, PodcastBinary, [BackgroundScenario.Episode], WorkerGuard) {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 2, size: 600_000, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let guardian = WorkerGuard(podcast)
        #expect(try await podcast.run(["download", "all", "--background"]).status == 0)
        _ = try await BackgroundScenario.waitForStatus(podcast) { status in
            episodes.allSatisfy { (BackgroundScenario.downloads(status)[$0.title]?["bytes"] as? Int ?? 0) >= 20_000 }
        }
        return (server, podcast, episodes, guardian)
    }

    @Test func pauseKeepsResumeDataAndResumeInTheBackgroundFinishesByteIdentical() async throws {
        let (server, podcast, episodes, guardian) = try await twoRunningInTheBackground()

        let paused = try await podcast.run(["pause"])
        #expect(paused.status == 0, "\(paused.stderr)")
        for episode in episodes { #expect(paused.stderr.contains("paused \"\(episode.title)\"")) }
        let status = try await BackgroundScenario.status(podcast)
        for episode in episodes {
            #expect(BackgroundScenario.downloads(status)[episode.title]?["state"] as? String == "paused")
        }
        #expect(try await ResumeScenario.wait { !BackgroundScenario.workerRuns(podcast) }, "a worker with nothing queued leaves")
        let partials = podcast.partialFiles()
        #expect(partials.count == 2 && partials.allSatisfy { $0.size > 0 }, "\(partials)")
        #expect(episodes.allSatisfy { podcast.finishedFile(titled: $0.title) == nil })

        for episode in episodes { episode.gate.open() }
        let resumed = try await podcast.run(["resume", "--background"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try await ResumeScenario.wait(upTo: .seconds(60)) {
            episodes.allSatisfy { podcast.finishedFile(titled: $0.title) != nil }
        })
        for episode in episodes {
            #expect(BackgroundScenario.sha256(finished: episode, in: podcast) == BackgroundScenario.sha256(episode.body))
            let ranges = ResumeScenario.requests(server, path: episode.path).compactMap { $0.header("Range") }
            #expect(ranges.contains { $0 != "bytes=0-" }, "\(episode.title) was continued, not fetched again: \(ranges)")
        }
        _ = guardian
    }

    @Test func pausingAnEpisodeAlreadyPausedSaysSoWhileOthersRun() async throws {
        let (server, podcast, episodes, guardian) = try await twoRunningInTheBackground()
        // Listing number 1 is the newest episode, the last one served.
        let (paused, running) = (episodes[1], episodes[0])
        let first = try await podcast.run(["pause", "1"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("paused \"\(paused.title)\""), "\(first.stderr)")

        let again = try await podcast.run(["pause", "1"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.hasPrefix("episode 1 (\"\(paused.title)\") is already paused; podcast download 1 continues it"), "\(again.stderr)")
        #expect(!again.stderr.contains("nothing to pause"), "\(again.stderr)")
        let status = try await BackgroundScenario.status(podcast)
        #expect(BackgroundScenario.downloads(status)[running.title]?["state"] as? String == "downloading")
        #expect(BackgroundScenario.downloads(status)[paused.title]?["state"] as? String == "paused")
        #expect(try await podcast.run(["cancel", "all"]).status == 0)
        _ = (server, guardian)
    }

    @Test func pauseStopsAForegroundDownloadInAnotherTerminal() async throws {
        let server = try LoopbackServer()
        let episode = BackgroundScenario.show(count: 1, size: 600_000, on: server)[0]
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let download = try podcast.start(["download", "1", "--json"])
        _ = try await BackgroundScenario.waitForStatus(podcast) { status in
            (BackgroundScenario.downloads(status)[episode.title]?["bytes"] as? Int ?? 0) >= 20_000
        }

        #expect(try await podcast.run(["pause"]).status == 0)
        let result = await download.finish(within: .seconds(20))
        // Nothing asked for was downloaded: the exit says so, and the summary why.
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("paused 1"), "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout)[episode.title] == "paused")
        #expect(podcast.partialFiles().first.map { $0.size > 0 } == true)
    }

    @Test func cancelStopsARunningDownloadAndDeletesItsPartialData() async throws {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 2, size: 400_000, on: server)
        // The kept episode gains nothing while its gate is shut: its attempts must not be counted
        // out before the gate opens, however long a loaded machine takes to get there.
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "stall-timeout = 1\nretries = 1000\n")
        let guardian = WorkerGuard(podcast)
        let scratch = try TemporaryDirectory(prefix: "cancel")
        let copy = scratch.path("summary.json")
        let launched = try await podcast.run(["download", "all", "--background", "--on-complete", "cp \"$PODCAST_SUMMARY\" '\(copy)'"])
        #expect(launched.status == 0)
        // Listing number 1 is the newest episode, the last one served.
        let cancelled = episodes[1]
        let kept = episodes[0]
        _ = try await BackgroundScenario.waitForStatus(podcast) { status in
            (BackgroundScenario.downloads(status)[cancelled.title]?["bytes"] as? Int ?? 0) >= 20_000
        }

        let result = try await podcast.run(["cancel", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("cancelled \"\(cancelled.title)\""))
        let status = try await BackgroundScenario.status(podcast)
        #expect(BackgroundScenario.downloads(status)[cancelled.title] == nil)
        #expect(podcast.partialFiles().count <= 1)
        kept.gate.open()

        #expect(try await ResumeScenario.wait(upTo: .seconds(60)) { FileManager.default.fileExists(atPath: copy) })
        #expect(BackgroundScenario.sha256(finished: kept, in: podcast) == BackgroundScenario.sha256(kept.body))
        #expect(podcast.finishedFile(titled: cancelled.title) == nil)
        #expect(podcast.partialFiles().isEmpty)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: copy))) as? [String: Any])
        let states = Dictionary(uniqueKeysWithValues: (summary["results"] as? [[String: Any]] ?? []).map {
            ($0["title"] as? String ?? "", ($0["state"] as? String ?? "", $0["error"] as? String))
        })
        #expect(states[cancelled.title]?.0 == "cancelled" && states[cancelled.title]?.1 == "cancelled")
        #expect(states[kept.title]?.0 == "downloaded")
        _ = guardian
    }

    /// A large batch hands the engine only so many episodes at a time; the others wait, claimed
    /// (status shows them queued), and must obey pause and cancel as well as the running ones.
    @Test func pauseAndCancelReachEpisodesStillWaitingToStart() async throws {
        let server = try LoopbackServer()
        // Concurrency 1 keeps 1 + 64 episodes in flight: listing numbers 66 to 70 wait to start.
        let episodes = BackgroundScenario.show(count: 70, size: 30_000, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let download = try podcast.start(["download", "all", "--concurrency", "1", "--json"])
        // Listing number 1 is the newest episode, the last one served; they start in that order.
        let (running, waiting) = (episodes[69], episodes[0])
        let status = try await BackgroundScenario.waitForStatus(podcast) { status in
            (BackgroundScenario.downloads(status)[running.title]?["bytes"] as? Int ?? 0) >= 20_000
        }
        #expect((BackgroundScenario.downloads(status)[running.title]?["bytes"] as? Int ?? 0) >= 20_000)
        #expect(BackgroundScenario.downloads(status)[waiting.title]?["state"] as? String == "queued")

        let cancelled = try await podcast.run(["cancel", "70"])
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(cancelled.stderr.contains("cancelled \"\(waiting.title)\""), "\(cancelled.stderr)")
        let paused = try await podcast.run(["pause"])
        #expect(paused.status == 0, "\(paused.stderr)")

        let result = await download.finish(within: .seconds(30))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("paused 69, cancelled 1"), "\(result.stderr)")
        let states = ResumeScenario.states(result.stdout)
        #expect(states[waiting.title] == "cancelled")
        #expect(episodes.dropFirst().allSatisfy { states[$0.title] == "paused" }, "\(states)")
        let after = BackgroundScenario.downloads(try await BackgroundScenario.status(podcast))
        #expect(after[waiting.title] == nil)
        #expect(episodes.dropFirst().allSatisfy { after[$0.title]?["state"] as? String == "paused" })
        #expect(podcast.partialFiles().count == 1, "only the running episode had data")
    }

    @Test func cancelAllDropsPausedDownloadsAndTheirPartialFiles() async throws {
        let (server, podcast, _, guardian) = try await twoRunningInTheBackground()
        #expect(try await podcast.run(["pause"]).status == 0)
        #expect(podcast.partialFiles().count == 2)

        let result = try await podcast.run(["cancel", "all", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let states = (document["downloads"] as? [[String: Any]] ?? []).compactMap { $0["state"] as? String }
        #expect(states == ["cancelled", "cancelled"])
        #expect(podcast.partialFiles().isEmpty)
        let status = try await BackgroundScenario.status(podcast)
        #expect((status["downloads"] as? [Any])?.isEmpty == true)
        let again = try await podcast.run(["resume"])
        #expect(again.stderr.contains("nothing to resume"))
        _ = (server, guardian)
    }
}
