import Foundation
import PodcastTestSupport
import Testing

/// A server that announces a length near Int64's end (Content-Length 5·10¹⁸, a valid number
/// whose double is not): its transfer ends with one line, the process goes on. The margin of
/// `BodyLimit` overflowed and ended `update`, `subscribe` and `download` at the first piece.
@Suite(.timeLimit(.minutes(5))) struct HugeLengthTests {
    static let huge = "5000000000000000000"

    @Test func aFeedThatAnnouncesAHugeLengthFailsAloneInAnUpdate() async throws {
        let server = try LoopbackServer()
        let fine = ServedShow("Fine Show", slug: "fine", episodes: 1, on: server)
        let liar = ServedShow("Liar Show", slug: "liar", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: fine)
        try await SubscriptionScenario.subscribe(podcast, to: liar)
        fine.publish()
        server.setRoute("/liar/feed.xml", .raw { _, writer in
            try writer.sendHead([("Content-Type", "application/rss+xml"), ("Content-Length", Self.huge), ("Connection", "close")])
            try writer.send("<rss><channel><title>Liar Show</title></channel></rss>")
        })

        let update = try await podcast.run(["update"])
        #expect(update.status == 1, "\(update.stderr)")
        let errors = update.stderrLines.filter { $0.hasPrefix("error:") }
        #expect(errors.count == 1 && errors.first?.hasPrefix("error: feed \"Liar Show\": ") == true, "\(update.stderr)")
        #expect(fine.stored(2, in: podcast) == fine.episode(2).body, "the other feed went on: \(update.stderr)")
    }

    @Test func anEpisodeThatAnnouncesAHugeLengthEndsInOneLine() async throws {
        let server = try LoopbackServer()
        let small = ResumeScenario.media(seed: 2, size: 100_000)
        ResumeScenario.serveFeed([
            ResumeScenario.Episode(title: "Liar", path: "/liar.mp3", length: nil),
            ResumeScenario.Episode(title: "Small", path: "/small.mp3", length: nil),
        ], on: server)
        server.setRoute("/liar.mp3", .raw { _, writer in
            try writer.sendHead([("Content-Type", "audio/mpeg"), ("Content-Length", Self.huge), ("Connection", "close")])
            try writer.send(Array(repeating: 0x55, count: 100_000))
        })
        server.setRoute("/small.mp3", .file(body: small, contentType: "audio/mpeg", etag: "\"small\""))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))

        let download = try await podcast.run(["download", "all", "--json"])
        #expect(download.status == 1, "\(download.stderr)")
        #expect(ResumeScenario.states(download.stdout) == ["Liar": "failed", "Small": "downloaded"], "\(download.stdout)")
        let lines = download.stderrLines.filter { $0.contains("(Liar)") && !$0.hasPrefix("downloading") }
        #expect(lines.count == 1 && lines.first?.contains("larger than the max-episode-size limit (16.0 GiB)") == true, "\(download.stderr)")
    }

    /// The same total in a 206's Content-Range, to a resume: the episode fails as too large, in
    /// one line, as any file past max-episode-size does.
    @Test func aContinuedAnswerWithAHugeTotalEndsInOneLine() async throws {
        let server = try LoopbackServer()
        let body = ResumeScenario.media(seed: 5, size: 300_000)
        let kept = 100_000
        ResumeScenario.serveFeed([ResumeScenario.Episode(title: "Liar", path: "/liar.mp3", length: nil)], on: server)
        server.setRoute("/liar.mp3", .garbageChunked(valid: body.prefix(kept), headers: [("ETag", "\"liar\"")]))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "retries = 1\n")
        #expect(try await podcast.run(["download", "all"]).status == 1)
        let partial = try #require(podcast.partialFiles().first)
        #expect(FileManager.default.contents(atPath: partial.path) == body.prefix(kept))

        server.setRoute("/liar.mp3", .raw { _, writer in
            try writer.sendHead(status: 206, [
                ("Content-Type", "audio/mpeg"), ("ETag", "\"liar\""), ("Content-Range", "bytes \(kept)-\(kept + 99)/\(Self.huge)"),
                ("Content-Length", "100"), ("Connection", "close"),
            ])
            try writer.send(Array(body[kept..<kept + 100]))
        })
        let resumed = try await podcast.run(["resume", "--json"])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        #expect(ResumeScenario.requests(server, path: "/liar.mp3").last?.header("Range") == ResumeScenario.range(from: kept))
        let lines = resumed.stderrLines.filter { $0.contains("(Liar)") && !$0.hasPrefix("downloading") }
        #expect(lines.count == 1 && lines.first?.contains("larger than the max-episode-size limit (16.0 GiB)") == true, "\(resumed.stderr)")
    }
}
