import Foundation
import PodcastTestSupport
import Testing

/// `update` as a pipeline with deadlines (issue 28), through the built binary: feed requests
/// carry no download headers, a dripping feed and a dead host hold back no other feed's new
/// episode and end within their deadlines, a killed update's temporary files are removed, and a
/// round of unchanged feeds writes no temporary file.
@Suite(.timeLimit(.minutes(5))) struct UpdatePipelineTests {
    /// The requests `server` received for `path`.
    private static func requests(_ server: LoopbackServer, _ path: String) -> [RecordedRequest] {
        server.requests.filter { $0.target == path }
    }

    @Test func headersFromTheConfigurationGoToDownloadsNotToFeeds() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Private Show", slug: "private", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home(configuration: "headers = [\"Authorization: Bearer s3cr3t\"]\n")
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])
        show.publish(1)

        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        let feedRequests = Self.requests(server, show.feedPath)
        #expect(feedRequests.count == 2)
        #expect(feedRequests.allSatisfy { $0.headers["authorization"] == nil }, "\(feedRequests.map(\.headers))")
        let media = Self.requests(server, "/private/media/2.mp3")
        #expect(!media.isEmpty && media.allSatisfy { $0.headers["authorization"] == "Bearer s3cr3t" }, "the download still has it")
    }

    @Test func headerFlagsGoToFeedsOnlyOnTheHostsTheyName() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Keyed Show", slug: "keyed", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])
        show.publish(1)

        let unscoped = try await podcast.run(["update", "--header", "X-Key: k1"])
        #expect(unscoped.status == 0, "\(unscoped.stderr)")
        #expect(Self.requests(server, show.feedPath).allSatisfy { $0.headers["x-key"] == nil })
        #expect(Self.requests(server, "/keyed/media/2.mp3").contains { $0.headers["x-key"] == "k1" })

        show.publish(1)
        let scoped = try await podcast.run(["update", "--header", "X-Key: k2", "--header-host", "127.0.0.1"])
        #expect(scoped.status == 0, "\(scoped.stderr)")
        #expect(Self.requests(server, show.feedPath).last?.headers["x-key"] == "k2", "header-hosts names the feed's host")
    }

    /// Three hosts: one whose feed drips for a minute, one that takes five feeds' requests and
    /// never answers, and one with a new episode. The new episode is downloaded before either
    /// slow host's feeds end, the dead host is asked twice and skipped, and the update ends at
    /// its deadlines (well inside the suite's time limit; before this, the dead host alone took
    /// five minutes), saying why each feed failed.
    @Test func aDrippingFeedAndADeadHostHoldBackNoOtherFeedsEpisode() async throws {
        let dripping = try LoopbackServer()
        let slow = ServedShow("Dripping Show", slug: "drip", episodes: 1, on: dripping)
        let dead = try LoopbackServer()
        let silent = (1...5).map { ServedShow("Silent Show \($0)", slug: "silent\($0)", episodes: 1, on: dead) }
        let healthy = try LoopbackServer()
        let news = ServedShow("News Show", slug: "news", episodes: 1, on: healthy)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0", slow.feedURL, news.feedURL] + silent.map(\.feedURL)).status == 0)

        // About 2 KiB a second (over the stall limit) for a minute; and silence.
        dripping.setRoute(slow.feedPath, .slow(body: Data(repeating: UInt8(ascii: " "), count: 120_000), chunkSize: 2048, interval: .seconds(1)))
        for show in silent { dead.setRoute(show.feedPath, .noResponse) }
        news.publish(1)

        let update = try await podcast.run(["update", "--feed-timeout", "3"])
        #expect(update.status == 1, "\(update.stderr)")
        let lines = update.stderrLines
        let downloaded = try #require(lines.firstIndex { $0.hasPrefix("downloaded \"Episode 2\"") }, "\(update.stderr)")
        let firstFailure = try #require(lines.firstIndex { $0.hasPrefix("error:") }, "\(update.stderr)")
        #expect(downloaded < firstFailure, "the new episode did not wait for the slow hosts: \(update.stderr)")
        #expect(news.stored(2, in: podcast) == news.episodes[1].body)

        let skipped = lines.filter { $0.contains("127.0.0.1:\(dead.port) did not answer twice: skipped for the rest of this update (3 feeds waited on it)") }
        #expect(skipped.count == 1, "\(update.stderr)")
        // 5 at subscribe, then each feed once at most: the 2 that went unanswered, and those the
        // engine started on the freed connections before the round heard of the skip (how many
        // depends on how busy the machine is) and cancelled.
        let asked = (1...5).map { Self.requests(dead, "/silent\($0)/feed.xml").count }.reduce(0, +)
        #expect((7...10).contains(asked), "\(asked)")
        #expect(lines.contains { $0.contains("\"Dripping Show\"") && $0.contains("not fetched within 3 s (feed-timeout)") }, "\(update.stderr)")
        #expect(lines.last?.hasPrefix("updated 7 feeds (1 with new episodes, 0 without, 6 failed: ") == true, "\(update.stderr)")
        #expect(lines.last?.contains("3 host down") == true && lines.last?.contains("3 timed out") == true, "\(update.stderr)")
    }

    /// SIGTERM while one feed's server says nothing: the feed read is recorded (its episode
    /// downloaded), the silent one is not, and the summary says one feed was not fetched.
    @Test func aStoppedUpdateSaysWhichFeedsItNeverFetched() async throws {
        let healthy = try LoopbackServer()
        let news = ServedShow("News Show", slug: "news", episodes: 1, on: healthy)
        let dead = try LoopbackServer()
        let silent = ServedShow("Silent Show", slug: "silent", episodes: 1, on: dead)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0", news.feedURL, silent.feedURL]).status == 0)
        dead.setRoute(silent.feedPath, .noResponse)
        news.publish(1)

        let update = try podcast.start(["update"])
        let reached = try await ResumeScenario.wait(upTo: .seconds(30)) {
            news.stored(2, in: podcast) != nil && Self.requests(dead, silent.feedPath).count == 2
        }
        #expect(reached, "the news was never downloaded, or the silent feed never asked")
        kill(update.pid, SIGTERM)
        let stopped = await update.finish(within: .seconds(20))
        #expect(stopped.status == 130, "\(stopped.stderr)")
        #expect(stopped.stderrLines.contains { $0.hasPrefix("updated 1 feed (1 with new episodes, 0 without); 1 feed not fetched (stopped first)") },
                "\(stopped.stderr)")
    }

    @Test func aKilledUpdatesTemporaryFeedFilesAreRemovedByTheNext() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Any Show", slug: "any", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])

        // A process that has ended: its pid names no process now.
        let ended = try ChildProcess(URL(fileURLWithPath: "/bin/true"), [])
        let endedPID = ended.pid
        #expect(await ended.finish(within: .seconds(10)).status == 0)
        let feeds = podcast.stateDirectory + "/feeds"
        let leftovers = [".update-\(endedPID)-1.part", ".fetch-\(endedPID)-7.part"]
        let live = ".fetch-\(getpid())-1.part"
        for name in leftovers + [live] {
            #expect(FileManager.default.createFile(atPath: feeds + "/" + name, contents: Data(repeating: 1, count: 4096)))
        }

        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        let names = SubscriptionScenario.names(in: feeds)
        #expect(leftovers.allSatisfy { !names.contains($0) }, "\(names)")
        #expect(names.contains(live), "a running process's file is left to it")
    }

    @Test func aRoundOfUnchangedFeedsWritesNoTemporaryFile() async throws {
        let server = try LoopbackServer()
        let shows = (1...3).map { ServedShow("Show \($0)", slug: "show\($0)", episodes: 2, on: server) }
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0"] + shows.map(\.feedURL)).status == 0)
        let watch = try DirectoryWatch(podcast.stateDirectory + "/feeds")

        // The watch sees a changed feed's temporary body come and go...
        shows[0].publish(1)
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(watch.names().contains { $0.hasPrefix(".fetch-") }, "a 200 is written to a temporary file first")

        // ...and none in a round where every feed answers 304.
        let unchanged = try await podcast.run(["update"])
        #expect(unchanged.status == 0, "\(unchanged.stderr)")
        #expect(shows.allSatisfy { $0.answers.notModified >= 1 } && shows[1].answers.notModified == 2, "every feed answered 304")
        let names = watch.names()
        #expect(!names.contains { $0.hasPrefix(".fetch-") || $0.hasPrefix(".update-") }, "\(names)")
    }
}

/// The names created in, moved into or removed from a directory since the last look (inotify):
/// what a run did there, with no tracer and no clock.
private final class DirectoryWatch {
    private let descriptor: Int32

    init(_ directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        guard inotify_add_watch(descriptor, directory, UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)) >= 0 else {
            close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
    }

    deinit { close(descriptor) }

    /// The names of the events queued since the last call (the kernel queues them as they
    /// happen, so a run that has ended has all of its events queued).
    func names() -> [String] {
        var names: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
                let name = buffer[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }
                names.append(String(decoding: name, as: UTF8.self))
                offset += header + length
            }
        }
        return names
    }
}
