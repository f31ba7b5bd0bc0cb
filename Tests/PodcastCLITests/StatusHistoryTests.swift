import Foundation
import PodcastKit
import PodcastTestSupport
import PodcastText
import Testing

/// `status` after a backlog, `history`, the listing numbers rows carry, and `pause <selection>`.
@Suite(.timeLimit(.minutes(5))) struct StatusHistoryTests {
    /// `count` small episodes, all downloaded in a fresh home.
    private func downloadedHome(count: Int) async throws -> (LoopbackServer, PodcastBinary) {
        let server = try LoopbackServer()
        let episodes = (1...count).map { ResumeScenario.Episode(title: "Done \($0)", path: "/media/d\($0).mp3", length: 1000) }
        ResumeScenario.serveFeed(episodes, on: server)
        for episode in episodes { server.setRoute(episode.path, .fixed(body: Data(repeating: 9, count: 1000))) }
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let result = try await podcast.run(["download", "all"])
        #expect(result.status == 0, "\(result.stderr)")
        return (server, podcast)
    }

    @Test func statusShowsTheLatestFinishedAndCountsTheRest() async throws {
        let (server, podcast) = try await downloadedHome(count: 8)
        let result = try await podcast.run(["status"], environment: ["COLUMNS": "200"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 8, "\(result.stdout)")
        #expect(lines[1].hasPrefix("#  State"))
        #expect(lines.dropFirst(2).prefix(5).allSatisfy { $0.contains(" downloaded ") })
        #expect(lines.last == "and 3 more finished in the last 24 h; podcast status --all lists them, podcast history lists older ones too")
        // Each row carries the episode's listing number.
        let numbers: [Int] = lines.dropFirst(2).prefix(5).compactMap { line in Int(line.prefix { $0 != " " }) }
        #expect(numbers.count == 5)
        #expect(numbers.allSatisfy { (1...8).contains($0) })
        _ = server
    }

    @Test func statusAllAndHistoryListEveryFinishedDownloadWithItsDate() async throws {
        let (server, podcast) = try await downloadedHome(count: 8)
        let all = try await podcast.run(["status", "--all"], environment: ["COLUMNS": "200"])
        let rows = all.stdout.split(separator: "\n").dropFirst(2)
        #expect(rows.count == 8, "\(all.stdout)")
        let today = UTCDate.day(Date())
        #expect(rows.allSatisfy { $0.contains(" \(today) ") })

        let history = try await podcast.run(["history"], environment: ["COLUMNS": "300"])
        #expect(history.status == 0)
        let lines = history.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Finished             Size  Podcast      Title   File") == true, "\(history.stdout)")
        #expect(lines.count == 9)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(today + " ") && $0.contains("  1.0 KiB  Resume Show  Done ") })

        let limited = try await podcast.run(["history", "--limit", "2", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(limited.stdout.utf8)) as? [String: Any])
        let downloads = try #require(document["downloads"] as? [[String: Any]])
        #expect(downloads.count == 2)
        #expect(Set(downloads[0].keys) == ["guid", "title", "podcast", "finished", "bytes", "path", "state", "deleted"])
        _ = server
    }

    /// `count` held-back episodes the worker is downloading, in a fresh home.
    private func backgroundHome(count: Int) async throws -> (LoopbackServer, PodcastBinary, [BackgroundScenario.Episode], WorkerGuard) {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: count, size: 200_000, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let guardian = WorkerGuard(podcast)
        #expect(try await podcast.run(["download", "all", "--background"]).status == 0)
        let running = try await BackgroundScenario.waitForStatus(podcast) { status in
            let downloads = BackgroundScenario.downloads(status)
            return downloads.count == count && downloads.values.allSatisfy { $0["state"] as? String == "downloading" }
        }
        #expect(BackgroundScenario.downloads(running).count == count)
        return (server, podcast, episodes, guardian)
    }

    @Test func pauseTakesTheNumbersStatusShows() async throws {
        let (server, podcast, episodes, guardian) = try await backgroundHome(count: 2)
        // Listing number 1 is the newest: the last of the show.
        let paused = try await podcast.run(["pause", "1"])
        #expect(paused.status == 0, "\(paused.stderr)")
        let after = try await BackgroundScenario.waitForStatus(podcast) { status in
            BackgroundScenario.downloads(status)[episodes[1].title]?["state"] as? String == "paused"
        }
        #expect(BackgroundScenario.downloads(after)[episodes[1].title]?["number"] as? Int == 1)
        #expect(BackgroundScenario.downloads(after)[episodes[0].title]?["state"] as? String == "downloading")
        #expect(try await podcast.run(["cancel", "all"]).status == 0)
        _ = (server, guardian)
    }

    @Test func aKilledWorkersDownloadsAreInterruptedAtOnce() async throws {
        let (server, podcast, episodes, guardian) = try await backgroundHome(count: 1)
        let pid = try #require(BackgroundScenario.workerPID(podcast))
        kill(pid, SIGKILL)
        let gone = try await ResumeScenario.wait { !BackgroundScenario.workerRuns(podcast) }
        #expect(gone)
        let status = try await BackgroundScenario.status(podcast)
        #expect(BackgroundScenario.downloads(status)[episodes[0].title]?["state"] as? String == "interrupted")
        _ = (server, guardian)
    }
}
