import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// kill -9 at random instants during concurrent downloads from a real, rate-limited nginx, again
/// and again, each time continued by `podcast resume` or `podcast download`: every file ends
/// byte-identical to the source, nothing unfinished ever sits under a final name, and little of
/// what arrived before a kill is fetched again.
@Suite(.enabled(if: NginxServer.isAvailable, "nginx is not installed (make setup installs nginx-light)"), .timeLimit(.minutes(5)))
struct KillResumeTortureTests {
    /// A small deterministic generator, so a failing run's kill instants can be replayed.
    private struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }

    private static let rounds = 20
    private static let seed: UInt64 = 0x5EED_2026
    private static let episodeSize = 3 * 1_048_576 + 12_345
    /// Per connection: four episodes over two connections take about 24 s in all.
    private static let rateLimit = 256 * 1024

    @Test func killNineAtRandomInstantsLosesNothingAndRefetchesLittle() async throws {
        let started = ContinuousClock.now
        let nginx = try await NginxServer(limitRate: Self.rateLimit)
        let episodes = (1...4).map { (title: "Torture \($0)", path: "/media/t\($0).mp3", body: ResumeScenario.media(seed: UInt64(60 + $0), size: Self.episodeSize)) }
        var items = ""
        for (index, episode) in episodes.enumerated() {
            try nginx.serve(episode.body, at: episode.path)
            items += """
                <item><title>\(episode.title)</title><guid>t\(index)</guid><pubDate>Mon, \(10 + index) Nov 2026 08:00:00 GMT</pubDate>
                <enclosure url="\(episode.path)" length="\(episode.body.count)" type="audio/mpeg"/></item>
                """
        }
        try nginx.serve(Data("<rss><channel><title>\(ResumeScenario.podcastTitle)</title>\(items)</channel></rss>".utf8), at: "/feed.xml")
        let podcast = try await ResumeScenario.listedHome(feedURL: nginx.url("/feed.xml"), configuration: "concurrency = 4\n")

        var generator = SplitMix64(state: Self.seed)
        var killedMidway = 0
        for round in 0..<Self.rounds {
            let command = round.isMultiple(of: 2) ? ["download", "all"] : ["resume"]
            let process = try podcast.start(command)
            // The kill instant, not a synchronization: whatever the process did by then must be safe.
            let delay = 150 + Int(generator.next() % 1_000)
            try await Task.sleep(for: .milliseconds(delay))
            if kill(process.pid, SIGKILL) == 0 { killedMidway += 1 }
            let result = await process.finish(within: .seconds(10))
            #expect(!result.timedOut, "round \(round) did not die")
            // Only a verified file may be under its final name.
            for episode in episodes {
                if let bytes = podcast.finishedBytes(titled: episode.title) {
                    #expect(bytes == episode.body, "round \(round): \(episode.title) is under its final name unfinished")
                }
            }
        }

        let last = try await podcast.run(["resume", "--json"])
        #expect(last.status == 0, "\(last.stderr)")
        let again = try await podcast.run(["download", "all", "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(ResumeScenario.states(again.stdout).values.allSatisfy { $0 == "skipped" }, "\(again.stdout)")
        for episode in episodes {
            #expect(podcast.finishedBytes(titled: episode.title) == episode.body, "\(episode.title)")
        }
        #expect(podcast.partialFiles().isEmpty, "\(podcast.partialFiles())")

        // nginx logs a request when it ends; one cut by a kill ends at its next write. Wait until the log is quiet.
        var served = 0
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let now = nginx.accessLog().filter { $0.target.hasPrefix("/media/") }.reduce(0) { $0 + $1.bodyBytesSent }
            if now == served { break }
            served = now
            try await Task.sleep(for: .milliseconds(300))
        }
        let requests = nginx.accessLog().filter { $0.target.hasPrefix("/media/") }
        await nginx.stop()

        let total = episodes.count * Self.episodeSize
        let refetched = served - total
        let percent = Double(refetched) / Double(total) * 100
        print("""
            kill -9 torture: \(Self.rounds) rounds (seed \(Self.seed), \(killedMidway) killed mid-run), \
            \(requests.count) media requests (\(requests.filter { $0.range != nil }.count) ranged), \
            served \(served) bytes for \(total): re-fetched \(refetched) bytes (\(String(format: "%.1f", percent))%), \
            \(ContinuousClock.now - started)
            """)
        // PODCAST_TORTURE_LOG=1 prints every media answer, to see where the re-fetched bytes went.
        if ProcessInfo.processInfo.environment["PODCAST_TORTURE_LOG"] != nil {
            for entry in requests { print("  \(entry.status) \(entry.bodyBytesSent) \(entry.target) \(entry.range ?? "-")") }
        }
        #expect(served >= total)
        #expect(refetched < total / 4, "re-fetched \(refetched) of \(total) bytes")
        // Resuming must actually have happened: most requests after the first four continue a
        // partial (on a loaded machine many rounds are killed before they ask for anything, so
        // the count of rounds says nothing).
        let ranged = requests.filter { $0.range != nil }.count
        #expect(ranged >= 1 && ranged * 2 >= requests.count - 4, "\(ranged) of \(requests.count) requests ranged")
    }
}
