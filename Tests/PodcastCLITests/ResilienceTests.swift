import Foundation
import PodcastKit
import PodcastTestSupport
import Synchronization
import Testing

/// One `podcast download` run against servers that fail the way real ones do: each failure is
/// retried as its kind deserves (at once with Range, after a back-off, from the enclosure URL,
/// or not at all), and what arrives is never fetched again.
@Suite(.timeLimit(.minutes(5))) struct ResilienceTests {
    private static let title = "Flaky"
    private static let path = "/media/flaky.mp3"
    private static let size = 800_000
    private static let body = ResumeScenario.media(seed: 30, size: size)

    /// A home that has listed a one-episode feed whose media is served by `route`.
    private func home(_ route: ServerRoute, on server: LoopbackServer, feedLength: Int? = size, configuration: String = "") async throws -> PodcastBinary {
        ResumeScenario.serveFeed([.init(title: Self.title, path: Self.path, length: feedLength)], on: server)
        server.setRoute(Self.path, route)
        return try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: configuration)
    }

    private static func ranged(_ fault: BodyFault = .none, served: ServedBytes? = nil) -> ServerRoute {
        .file(body: body, contentType: "audio/mpeg", etag: "\"f1\"", fault: fault, served: served)
    }

    @Test func repeatedDropsEachResumeFromWhereTheyStopped() async throws {
        let server = try LoopbackServer()
        // Eight drops in a row, more than the six failures allowed: each one gained bytes, so none counts.
        let drops = 8
        let piece = 90_000
        let served = ServedBytes()
        let cutting = Self.ranged(.cut(afterBytes: piece), served: served)
        let whole = Self.ranged(served: served)
        let podcast = try await home(.sequence(Array(repeating: cutting, count: drops) + [whole]), on: server)

        let result = try await podcast.run(["download", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.body)
        let requests = ResumeScenario.requests(server, path: Self.path)
        #expect(requests.count == drops + 1)
        for (attempt, request) in requests.enumerated().dropFirst() {
            #expect(request.header("Range") == ResumeScenario.range(from: attempt * piece), "attempt \(attempt)")
            #expect(request.header("If-Range") == "\"f1\"")
        }
        // Nothing that arrived was fetched again.
        #expect(served.total == Self.size)
    }

    @Test func shortBodyAgainstContentLengthIsCompletedWithARange() async throws {
        let server = try LoopbackServer()
        let short = ServerRoute.cut(afterBytes: 300_000, body: Self.body, headers: [("Content-Type", "audio/mpeg"), ("ETag", "\"f1\""), ("Accept-Ranges", "bytes")])
        let podcast = try await home(.sequence([short, Self.ranged()]), on: server)

        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.body)
        let requests = ResumeScenario.requests(server, path: Self.path)
        #expect(requests.count == 2)
        #expect(requests.last?.header("Range") == ResumeScenario.range(from: 300_000))
    }

    @Test func stallThatNeverEndsIsAbandonedAndResumed() async throws {
        let server = try LoopbackServer()
        let podcast = try await home(.sequence([Self.ranged(.stall(afterBytes: 250_000)), Self.ranged()]), on: server)

        let result = try await podcast.run(["download", "1", "--stall-timeout", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.timedOut)
        #expect(podcast.finishedBytes(titled: Self.title) == Self.body)
        let requests = ResumeScenario.requests(server, path: Self.path)
        #expect(requests.count == 2)
        #expect(requests.last?.header("Range") == ResumeScenario.range(from: 250_000))
    }

    @Test(arguments: [429, 503])
    func busyServerIsAskedAgainNoSoonerThanRetryAfter(status: Int) async throws {
        let server = try LoopbackServer()
        let arrivals = ArrivalTimes()
        let busy = ServerRoute.status(status, headers: [("Retry-After", "1")])
        let podcast = try await home(arrivals.noting(.sequence([busy, Self.ranged()])), on: server)

        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.body)
        let instants = arrivals.instants
        #expect(instants.count == 2)
        if instants.count >= 2 {
            // retry-wait is 0.05 s here: only Retry-After can explain a wait of a second.
            #expect(instants[1] - instants[0] >= .milliseconds(950), "waited \(instants[1] - instants[0])")
        }
    }

    @Test func serverErrorsAreRetriedAfterABackOff() async throws {
        let server = try LoopbackServer()
        let podcast = try await home(.sequence([.status(500), .status(502), .status(408), Self.ranged()]), on: server)

        let result = try await podcast.run(["download", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.body)
        #expect(ResumeScenario.requests(server, path: Self.path).count == 4)
    }

    @Test func failuresWithoutProgressStopAfterRetries() async throws {
        let server = try LoopbackServer()
        let podcast = try await home(.status(503), on: server)

        let result = try await podcast.run(["download", "1", "--retries", "2", "--json"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout) == [Self.title: "failed"])
        // "2 attempts without progress" or "2 retries after the first": either reading, no more.
        let count = ResumeScenario.requests(server, path: Self.path).count
        #expect((2...3).contains(count), "\(count) requests")
        #expect(result.stderr.contains("503"), "\(result.stderr)")
        #expect(podcast.finishedFile(titled: Self.title) == nil)
    }

    @Test func retriesFromTheConfigurationFileCountLikeTheOption() async throws {
        let server = try LoopbackServer()
        let podcast = try await home(.status(500), on: server, configuration: "retries = 1\n")

        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 1, "\(result.stderr)")
        let count = ResumeScenario.requests(server, path: Self.path).count
        #expect((1...2).contains(count), "\(count) requests")
    }

    @Test func retryBudgetEndsTheRetriesOfAnEpisode() async throws {
        let server = try LoopbackServer()
        // Waits of 0.05, 0.1, 0.2 … s: a one-second budget is spent after a handful of attempts.
        let podcast = try await home(.status(503), on: server, configuration: "retry-budget = 1\n")

        let result = try await podcast.run(["download", "1", "--retries", "1000", "--json"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout) == [Self.title: "failed"])
        // The budget, not the thousand retries, ended it: without it the run would hit its time limit.
        #expect(!result.timedOut)
        #expect(ResumeScenario.requests(server, path: Self.path).count >= 2)
    }

    @Test func expiredSignedLinkIsFetchedAgainFromTheEnclosureURL() async throws {
        let server = try LoopbackServer()
        // The enclosure redirects to a signed CDN link; the first link expires mid-download
        // (401 to the resume), a fresh redirect gives a new one that works.
        let signatures = Mutex(0)
        let enclosure = ServerRoute.handler { _ in
            let next = signatures.withLock { count in
                count += 1
                return count
            }
            return .redirect(to: "/cdn/flaky.mp3?sig=\(next)")
        }
        let cdn = ServerRoute.handler { request in
            switch request.query {
            case "sig=1" where request.header("Range") == nil: Self.ranged(.cut(afterBytes: 200_000))
            case "sig=1": .status(401, headers: [("WWW-Authenticate", "Bearer")])
            default: Self.ranged()
            }
        }
        let podcast = try await home(enclosure, on: server)
        server.setRoute("/cdn/flaky.mp3", cdn)

        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.body)
        #expect(ResumeScenario.requests(server, path: Self.path).count >= 2)
        let fresh = ResumeScenario.requests(server, path: "/cdn/flaky.mp3").filter { $0.query != "sig=1" }
        #expect(fresh.count == 1)
        // The new link continued the partial rather than fetching it all again.
        #expect(fresh.first?.header("Range") == ResumeScenario.range(from: 200_000))
    }

    @Test func forbiddenTwiceFailsAfterOneRetryFromTheEnclosureURL() async throws {
        let server = try LoopbackServer()
        let podcast = try await home(.redirect(to: "/cdn/denied.mp3?sig=x"), on: server)
        server.setRoute("/cdn/denied.mp3", .status(403))

        let result = try await podcast.run(["download", "1", "--json"])
        #expect(result.status == 1)
        #expect(ResumeScenario.states(result.stdout) == [Self.title: "failed"])
        #expect(ResumeScenario.requests(server, path: Self.path).count == 2)
        #expect(ResumeScenario.requests(server, path: "/cdn/denied.mp3").count == 2)
        #expect(result.stderr.contains("403"), "\(result.stderr)")
    }

    @Test(arguments: [404, 410])
    func goneEpisodeFailsAtOnceWhileTheOthersArrive(status: Int) async throws {
        let server = try LoopbackServer()
        let episodes = (1...3).map { (title: "Ep \($0)", path: "/media/ep\($0).mp3", body: ResumeScenario.media(seed: UInt64(40 + $0), size: 300_000)) }
        ResumeScenario.serveFeed(episodes.map { .init(title: $0.title, path: $0.path, length: $0.body.count) }, on: server)
        for (index, episode) in episodes.enumerated() {
            server.setRoute(episode.path, index == 1 ? .status(status) : .file(body: episode.body, contentType: "audio/mpeg", etag: "\"e\(index)\""))
        }
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))

        let result = try await podcast.run(["download", "all", "--json"])
        #expect(result.status == 1)
        #expect(ResumeScenario.states(result.stdout) == ["Ep 1": "downloaded", "Ep 2": "failed", "Ep 3": "downloaded"])
        #expect(ResumeScenario.requests(server, path: "/media/ep2.mp3").count == 1)
        #expect(result.stderr.contains("\(status)"), "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: "Ep 1") == episodes[0].body)
        #expect(podcast.finishedBytes(titled: "Ep 3") == episodes[2].body)
        // A final failure is not "unfinished": resume leaves it alone.
        let resumed = try await podcast.run(["resume", "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(ResumeScenario.requests(server, path: "/media/ep2.mp3").count == 1)
    }

    @Test func gzipEncodedMediaCutShortStillEndsAsThePlainFile() async throws {
        let server = try LoopbackServer()
        // A misconfigured server gzips the mp3 whatever was asked, and honours ranges over the gzip bytes.
        func gzip(_ fault: BodyFault) -> ServerRoute {
            .gzipFile(body: Self.body, etag: "\"plain\"", encodedETag: "\"gz\"", ignoringAcceptEncoding: true, fault: fault)
        }
        let podcast = try await home(.sequence([gzip(.cut(afterBytes: 250_000)), gzip(.none)]), on: server)

        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.body)
    }

    @Test func lengthOtherThanTheFeedsIsAWarningNotAFailure() async throws {
        let server = try LoopbackServer()
        let podcast = try await home(Self.ranged(), on: server, feedLength: 123_456)

        let result = try await podcast.run(["download", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout) == [Self.title: "downloaded"])
        #expect(podcast.finishedBytes(titled: Self.title) == Self.body)
        #expect(result.stderr.contains("warning:"), "\(result.stderr)")
    }
}
