import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// What the commands write, and how much: output errors, --quiet, --verbose, plain progress
/// lines off a terminal, signals, and the smaller wording fixes.
@Suite(.timeLimit(.minutes(5))) struct OutputBehaviourTests {
    private static func feed(_ items: String, title: String = "Output Show") -> Data {
        Data("<rss><channel><title>\(title)</title>\(items)</channel></rss>".utf8)
    }

    private static func item(_ number: Int, path: String? = nil, length: Int = 10_000) -> String {
        let enclosure = path.map { "<enclosure url=\"\($0)\" length=\"\(length)\" type=\"audio/mpeg\"/>" } ?? ""
        return "<item><title>Item \(number)</title><guid>o-\(number)</guid><pubDate>Tue, 10 Nov 2026 0\(number % 10):00:00 GMT</pubDate>\(enclosure)</item>"
    }

    /// Runs `podcast arguments…` through /bin/sh with `redirect` applied to its stdout.
    private func run(_ podcast: PodcastBinary, _ arguments: [String], stdout redirect: String) async throws -> ChildProcess.Result {
        let process = try ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \"$@\" \(redirect)", builtExecutable(named: "podcast").path] + arguments,
            environment: podcast.runEnvironment)
        return await process.finish(within: .seconds(60))
    }

    @Test func aFullDiskForTheOutputIsAnError() async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": .fixed(body: Self.feed(Self.item(1, path: "/a.mp3")))])
        let result = try await run(try PodcastBinary(), ["episodes", server.url("/feed.xml"), "--json"], stdout: ">/dev/full")
        #expect(result.status == 1)
        #expect(result.stderr == "error: writing output: No space left on device; the output is incomplete: check where stdout goes\n")
    }

    @Test func aClosedStdoutIsAnErrorAndNothingElseIsWrittenThere() async throws {
        let server = try LoopbackServer(routes: ["/search": .fixed(body: try Fixtures.data("own/itunes/search_podcasts_10.txt"))])
        let podcast = try PodcastBinary(itunes: server)
        let result = try await run(podcast, ["search", "history"], stdout: ">&-")
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("error: writing output: Bad file descriptor; the output is incomplete: check where stdout goes\n"), "\(result.stderr)")
        // The store opened meanwhile did not get descriptor 1 and the table in it.
        #expect(try await podcast.run(["status"]).status == 0)
    }

    @Test func quietSaysNothingWhenAllGoesWell() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Self.feed(Self.item(1, path: "/a.mp3"))))
        server.setRoute("/a.mp3", .fixed(body: Data(repeating: 1, count: 10_000)))
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml"), "-q"]).stderr.isEmpty)
        let result = try await podcast.run(["download", "1", "-q"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.isEmpty)
    }

    @Test func verboseShowsEachRequestAndAnswer() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Self.feed(Self.item(1, path: "/moved.mp3"))))
        server.setRoute("/moved.mp3", .redirect(to: "/a.mp3"))
        server.setRoute("/a.mp3", .fixed(body: Data(repeating: 1, count: 10_000), headers: [("Content-Type", "audio/mpeg")]))
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["download", "1", "--verbose"])
        #expect(result.status == 0)
        let http = result.stderrLines.filter { $0.hasPrefix("http: ") }
        #expect(http == [
            "http: GET \(server.url("/moved.mp3"))",
            "http: 302 from \(server.url("/moved.mp3")) → \(server.url("/a.mp3"))",
            "http: GET \(server.url("/a.mp3"))",
            "http: 200 from \(server.url("/a.mp3")) (audio/mpeg)",
        ])
    }

    @Test func offATerminalProgressIsPrintedEveryTenth() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Self.feed(Self.item(1, path: "/slow.mp3", length: 200_000))))
        server.setRoute("/slow.mp3", .slow(body: Data(repeating: 2, count: 200_000), chunkSize: 10_000, interval: .milliseconds(100)))
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 0)
        let progress = result.stderrLines.filter { $0.hasPrefix("progress episode 1 (Item 1): ") }
        let percents = progress.compactMap { line in Int(line.dropFirst("progress episode 1 (Item 1): ".count).prefix { $0 != "%" }) }
        #expect(percents.count == progress.count)
        #expect(percents.count >= 3, "\(result.stderr)")
        #expect(percents == percents.sorted() && Set(percents.map { $0 / 10 }).count == percents.count, "\(percents)")
        #expect(progress.allSatisfy { $0.contains(" of 195.3 KiB") })
    }

    @Test func theWorkersLogGetsProgressLinesToo() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Self.feed(Self.item(1, path: "/slow.mp3", length: 200_000))))
        server.setRoute("/slow.mp3", .slow(body: Data(repeating: 2, count: 200_000), chunkSize: 20_000, interval: .milliseconds(100)))
        let podcast = try PodcastBinary()
        let guardian = WorkerGuard(podcast)
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        #expect(try await podcast.run(["download", "1", "--background"]).status == 0)
        let log = podcast.stateDirectory + "/worker.log"
        let logged = try await ResumeScenario.wait(upTo: .seconds(60)) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("downloaded episode 1 (Item 1)")
        }
        #expect(logged)
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("progress episode 1 (Item 1): ") && $0.contains("%, ") }, "\(lines)")
        _ = guardian
    }

    @Test func sighupPausesLikeSigterm() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Self.feed(Self.item(1, path: "/long.mp3", length: 400_000))))
        server.setRoute("/long.mp3", .stall(afterBytes: 100_000, body: Data(count: 400_000)))
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let download = try podcast.start(["download", "1"])
        let started = try await ResumeScenario.wait { server.requestCount(path: "/long.mp3") > 0 }
        #expect(started)
        kill(download.pid, SIGHUP)
        let result = await download.finish(within: .seconds(30))
        #expect(result.status == 130)
        #expect(result.stderr.contains("interrupted: unfinished episodes are paused"))
        let status = try await BackgroundScenario.status(podcast)
        #expect(BackgroundScenario.downloads(status)["Item 1"]?["state"] as? String == "paused")
    }

    @Test func episodesWithoutMediaAreSkippedWithANote() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Self.feed(Self.item(2, path: "/a.mp3") + Self.item(1))))
        server.setRoute("/a.mp3", .fixed(body: Data(repeating: 1, count: 10_000)))
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        for _ in 1...2 {
            let result = try await podcast.run(["download", "all"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("skipped episode 2 (Item 1): the feed gives no media file for this episode (show notes only); nothing to download\n"))
        }
    }

    @Test func retryLinesDoNotContradictThemselves() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Self.feed(Self.item(1, path: "/busy.mp3"))))
        server.setRoute("/busy.mp3", .sequence([.status(503, headers: [("Retry-After", "1")]), .fixed(body: Data(repeating: 1, count: 10_000))]))
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("retry-wait = 0.05\n")
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let retry = try #require(result.stderrLines.first { $0.hasPrefix("retrying ") })
        #expect(retry == "retrying episode 1 (Item 1) in 1 s: server answered 503 Service Unavailable for \(server.url("/busy.mp3"))")
    }

    /// A server that answers 503 with Retry-After until the retry budget is spent: the line that
    /// gives up says how many attempts over how long and to resume later, not the last answer's
    /// "try again in 2 s", which the spent retries have made wrong.
    @Test func givingUpAfterTheRetryBudgetSaysWhatWasTriedAndWhatToDo() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Self.feed(Self.item(1, path: "/busy.mp3"))))
        server.setRoute("/busy.mp3", .status(503, headers: [("Retry-After", "2")]))
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("retry-wait = 0.05\nretry-budget = 3\n")
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 1, "\(result.stderr)")
        let error = try #require(result.stderrLines.first { $0.hasPrefix("error: episode 1 (Item 1): ") }, "\(result.stderr)")
        #expect(error == "error: episode 1 (Item 1): gave up after 2 attempts in a row that gained nothing over 2 s: the server keeps "
            + "answering 503 (last: server answered 503 Service Unavailable for \(server.url("/busy.mp3"))); run podcast resume later to try again")
        #expect(!result.stderr.contains("try again in"), "\(result.stderr)")
    }

    /// A lost store leaves files no record names: they are someone else's now, so the listing does
    /// not claim them as downloaded (nor would `delete` or `keep` touch them).
    @Test func filesOnDiskAreNotShownAsDownloadedAfterTheStoreIsLost() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Self.feed(Self.item(2, path: "/b.mp3") + Self.item(1, path: "/a.mp3"))))
        server.setRoute("/a.mp3", .fixed(body: Data(repeating: 1, count: 10_000)))
        server.setRoute("/b.mp3", .fixed(body: Data(repeating: 2, count: 10_000)))
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        #expect(try await podcast.run(["download", "2"]).status == 0)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: podcast.stateDirectory + "/state.sqlite" + suffix) }
        let result = try await podcast.run(["episodes", server.url("/feed.xml"), "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let episodes = try #require(document["episodes"] as? [[String: Any]])
        #expect(episodes.map { $0["state"] as? String } == ["new", "new"])
        #expect(episodes[1]["path"] is NSNull)
        #expect(FileManager.default.fileExists(atPath: podcast.stateDirectory + "/Episodes/Output Show/2026-11-10 Item 1.mp3"))
    }
}
