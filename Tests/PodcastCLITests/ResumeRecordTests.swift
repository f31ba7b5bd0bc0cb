import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// The resume records in the store: what an interruption leaves, and that a record that is
/// wrong, unreadable or missing, or an episode claimed by another process, never leaves an
/// episode stuck or fetched twice.
@Suite(.timeLimit(.minutes(5))) struct ResumeRecordTests {
    private static let size = 500_000
    private static let stopAt = 120_000

    /// Three episodes on `server` whose first answers stall after `stopAt` bytes.
    private static func stallingShow(on server: LoopbackServer) -> [(title: String, path: String, body: Data)] {
        let episodes = (1...3).map { (title: "Part \($0)", path: "/media/part\($0).mp3", body: ResumeScenario.media(seed: UInt64(10 + $0), size: size)) }
        ResumeScenario.serveFeed(episodes.map { .init(title: $0.title, path: $0.path, length: size) }, on: server)
        for episode in episodes {
            server.setRoute(episode.path, .file(body: episode.body, contentType: "audio/mpeg", etag: "\"\(episode.path)\"", fault: .stall(afterBytes: stopAt)))
        }
        return episodes
    }

    /// Serves every episode in full (with ranges), paced so that runs overlap when needed.
    private static func serveInFull(_ episodes: [(title: String, path: String, body: Data)], on server: LoopbackServer, paced: Bool = false) {
        for episode in episodes {
            let fault: BodyFault = paced ? .paced(chunkSize: 32_768, interval: .milliseconds(40)) : .none
            server.setRoute(episode.path, .file(body: episode.body, contentType: "audio/mpeg", etag: "\"\(episode.path)\"", fault: fault))
        }
    }

    /// One episode interrupted after `stopAt` bytes; returns the home, the episode and its record.
    private func oneInterrupted(on server: LoopbackServer) async throws -> (PodcastBinary, (title: String, path: String, body: Data)) {
        let episode = (title: "Single", path: "/media/single.mp3", body: ResumeScenario.media(seed: 20, size: Self.size))
        ResumeScenario.serveFeed([.init(title: episode.title, path: episode.path, length: Self.size)], on: server)
        server.setRoute(episode.path, .file(body: episode.body, contentType: "audio/mpeg", etag: "\"s1\"", fault: .stall(afterBytes: Self.stopAt)))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        _ = try await podcast.interruptedDownload(["1"], once: Self.stopAt)
        server.setRoute(episode.path, .file(body: episode.body, contentType: "audio/mpeg", etag: "\"s1\""))
        return (podcast, episode)
    }

    @Test func interruptedDownloadReportsPausedAndPointsToResume() async throws {
        let server = try LoopbackServer()
        let episodes = Self.stallingShow(on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let download = try podcast.start(["download", "all", "--json"])
        // At most two connections per host: two partials stall while the third waits its turn.
        let reached = try await ResumeScenario.wait { podcast.partialFiles().filter { $0.size >= Self.stopAt }.count >= 2 }
        #expect(reached, "\(podcast.partialFiles())")
        kill(download.pid, SIGTERM)
        let result = await download.finish(within: .seconds(20))

        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("podcast resume"), "\(result.stderr)")
        let states = ResumeScenario.states(result.stdout)
        #expect(states.values.filter { $0 == "paused" }.count >= 2, "\(result.stdout)")
        #expect(!states.values.contains("failed"))
        for episode in episodes {
            #expect(podcast.finishedFile(titled: episode.title) == nil)
        }
        let records = try podcast.openStore().downloads.all()
        #expect(records.filter { $0.state == .paused }.count >= 2)
        #expect(records.allSatisfy { $0.state != .downloading && $0.state != .downloaded })
        for record in records where record.bytes > 0 {
            let partial = try #require(record.resume.partialPath)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int)
            #expect(Int64(size) >= record.bytes)
        }

        Self.serveInFull(episodes, on: server)
        let resumed = try await podcast.run(["resume", "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        for episode in episodes {
            #expect(podcast.finishedBytes(titled: episode.title) == episode.body, "\(episode.title)")
        }
    }

    @Test func recordClaimingMoreBytesThanThePartialHoldsStartsOver() async throws {
        let server = try LoopbackServer()
        let (podcast, episode) = try await oneInterrupted(on: server)
        let store = try podcast.openStore()
        var record = try #require(try store.downloads.all().first)
        // Even the durable count claims bytes the file does not hold: the file is not what was recorded.
        record.bytes = Int64(Self.size - 10)
        record.resume.durableBytes = Int64(Self.size - 10)
        try store.downloads.save(record)

        let result = try await podcast.run(["resume"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: episode.title) == episode.body)
        #expect(ResumeScenario.requests(server, path: episode.path).dropFirst().first?.header("Range") == nil)
    }

    @Test func recordWhosePartialFileIsGoneStartsOver() async throws {
        let server = try LoopbackServer()
        let (podcast, episode) = try await oneInterrupted(on: server)
        for partial in podcast.partialFiles() {
            try FileManager.default.removeItem(atPath: partial.path)
        }

        let result = try await podcast.run(["resume"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: episode.title) == episode.body)
        #expect(ResumeScenario.requests(server, path: episode.path).dropFirst().first?.header("Range") == nil)
    }

    @Test func recordNamingAPartialPathThatDoesNotExistStartsOver() async throws {
        let server = try LoopbackServer()
        let (podcast, episode) = try await oneInterrupted(on: server)
        let store = try podcast.openStore()
        var record = try #require(try store.downloads.all().first)
        record.resume.partialPath = podcast.home.path("nowhere/lost.part")
        try store.downloads.save(record)

        let result = try await podcast.run(["resume"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: episode.title) == episode.body)
        #expect(ResumeScenario.requests(server, path: episode.path).dropFirst().first?.header("Range") == nil)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell edits the record"))
    func recordWithAnUnreadableStateStartsOverInsteadOfStaying() async throws {
        let server = try LoopbackServer()
        let (podcast, episode) = try await oneInterrupted(on: server)
        let edit = try ChildProcess(URL(filePath: "/usr/bin/sqlite3"), [
            podcast.stateDirectory + "/state.sqlite", // The schema's CHECK forbids this state; a damaged file or a foreign writer need not care.
            "PRAGMA ignore_check_constraints = ON; UPDATE downloads SET state = 'half-written', bytes = -5",
        ])
        let edited = await edit.finish(within: .seconds(10))
        #expect(edited.status == 0, "\(edited.stderr)")

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: episode.title) == episode.body, "\(result.stdout)\n\(result.stderr)")
    }

    @Test func partialFileWithoutARecordIsOverwrittenNotContinued() async throws {
        let server = try LoopbackServer()
        let (podcast, episode) = try await oneInterrupted(on: server)
        // The store is lost; the partial stays, and now holds bytes of something else entirely.
        let partial = try #require(podcast.partialFiles().first?.path)
        try ResumeScenario.media(seed: 99, size: Self.stopAt).write(to: URL(filePath: partial))
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: podcast.stateDirectory + "/state.sqlite" + suffix)
        }
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)

        let resume = try await podcast.run(["resume", "--json"])
        #expect(resume.status == 0, "\(resume.stderr)")
        let result = try await podcast.run(["download", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: episode.title) == episode.body)
        #expect(ResumeScenario.requests(server, path: episode.path).last?.header("Range") == nil)
    }

    @Test func twoResumesAtOnceFetchEachEpisodeOnce() async throws {
        let server = try LoopbackServer()
        let episodes = Self.stallingShow(on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "concurrency = 3\n")
        // Interrupt the first two (two connections per host), then the third on its own.
        _ = try await podcast.interruptedDownload(["1", "2"], once: 2 * Self.stopAt)
        _ = try await podcast.interruptedDownload(["3"], once: 3 * Self.stopAt)
        let before = server.requests.count
        Self.serveInFull(episodes, on: server, paced: true)

        let first = try podcast.start(["resume", "--json"])
        let second = try podcast.start(["resume", "--json"])
        let one = await first.finish(within: .seconds(60))
        let two = await second.finish(within: .seconds(60))

        #expect(one.status == 0, "\(one.stderr)")
        #expect(two.status == 0, "\(two.stderr)")
        let later = server.requests.dropFirst(before)
        for episode in episodes {
            #expect(later.filter { $0.path == episode.path }.count == 1, "\(episode.title) fetched by both")
            #expect(podcast.finishedBytes(titled: episode.title) == episode.body, "\(episode.title)")
        }
        let results = ResumeScenario.results(one.stdout) + ResumeScenario.results(two.stdout)
        #expect(results.filter { $0["state"] as? String == "downloaded" }.count == 3)
        #expect(!results.contains { $0["state"] as? String == "failed" })
        let skippedReasons = results.filter { $0["state"] as? String == "skipped" }.compactMap { $0["error"] as? String }
        #expect(skippedReasons.allSatisfy { $0.contains("being downloaded by process") || $0.contains("already") }, "\(skippedReasons)")
    }
}
