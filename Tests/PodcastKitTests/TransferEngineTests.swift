import Foundation
@testable import PodcastHTTP
@testable import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Synchronization
import Testing

/// The engine against the loopback server: real sockets, real files.
@Suite(.timeLimit(.minutes(5))) struct TransferEngineTests {
    /// Runs `requests` through an engine and returns every event once all have ended (bounded).
    private func run(
        _ requests: [TransferRequest], settings: TransferEngine.Settings = .init(http: HTTPSettings(stallTimeout: 2)),
        whileRunning: (TransferEngine) -> Void = { _ in }
    ) async throws -> [TransferEvent] {
        let events = Mutex<[TransferEvent]>([])
        let (ended, continuation) = AsyncStream<Void>.makeStream()
        let engine = try TransferEngine(settings: settings) { turn in
            events.withLock { $0.append(contentsOf: turn) }
            for event in turn {
                switch event {
                case .completed, .failed: continuation.yield()
                case .started, .responded, .progress, .filled: break
                }
            }
        }
        for request in requests { engine.start(request) }
        whileRunning(engine)
        let deadline = Task {
            try await Task.sleep(for: .seconds(60))
            continuation.finish()
        }
        var count = 0
        for await _ in ended {
            count += 1
            if count == requests.count { break }
        }
        deadline.cancel()
        engine.shutdown()
        #expect(count == requests.count, "only \(count) of \(requests.count) transfers ended")
        return events.withLock { $0 }
    }

    private func completed(_ events: [TransferEvent]) -> [Int: CompletedTransfer] {
        Dictionary(uniqueKeysWithValues: events.compactMap { if case .completed(let done) = $0 { (done.id, done) } else { nil } })
    }

    private func failures(_ events: [TransferEvent]) -> [Int: FailedTransfer] {
        Dictionary(uniqueKeysWithValues: events.compactMap { if case .failed(let failure) = $0 { (failure.id, failure) } else { nil } })
    }

    private static func body(_ seed: Int, size: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7) })
    }

    @Test func severalFilesDownloadAtOnceByteForByte() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let server = try LoopbackServer()
        let bodies = (1...4).map { Self.body($0, size: 300_000 + $0) }
        for (index, body) in bodies.enumerated() {
            // Paced, so the transfers must overlap for the run to finish quickly.
            server.setRoute("/\(index)", .slow(body: body, chunkSize: 30_000, interval: .milliseconds(40)))
        }
        let requests = bodies.indices.map { TransferRequest(id: $0, url: server.url("/\($0)"), partialPath: directory.path("\($0).part"), expectsMedia: false) }
        let events = try await run(requests)
        let done = completed(events)
        #expect(done.count == 4)
        for (index, body) in bodies.enumerated() {
            #expect(try Data(contentsOf: URL(filePath: directory.path("\(index).part"))) == body)
            #expect(done[index]?.bytes == Int64(body.count))
        }
        #expect(events.filter { if case .started = $0 { true } else { false } }.count == 4)
        let overlap = events.compactMap { if case .progress(let running) = $0 { running.count } else { nil } }.max() ?? 0
        #expect(overlap == 3, "the default concurrency is 3: at most, and at some moment exactly, 3 ran together")
    }

    @Test func aLargeFileIsAnnouncedPieceByPieceForWriteback() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let size = 2 * Int(Transfer.filledPiece) + 123_456
        let body = Self.body(5, size: size)
        let server = try LoopbackServer(routes: ["/big.mp3": .fixed(body: body, headers: [("Content-Type", "audio/mpeg")])])
        let events = try await run([TransferRequest(id: 1, url: server.url("/big.mp3"), partialPath: directory.path("big.part"))])
        #expect(completed(events)[1]?.bytes == Int64(size))
        #expect(try Data(contentsOf: URL(filePath: directory.path("big.part"))) == body)
        let filled = events.compactMap { if case .filled(let id, let bytes) = $0, id == 1 { bytes } else { nil } }
        #expect(filled.count == 2, "one announcement per whole piece: \(filled)")
        #expect(filled == filled.sorted())
        for (index, bytes) in filled.enumerated() {
            #expect(bytes >= Int64(index + 1) * Transfer.filledPiece && bytes <= Int64(size))
        }
    }

    @Test func theRateLimitIsSharedByEveryTransfer() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let bodies = [Self.body(7, size: 300_000), Self.body(8, size: 300_000)]
        let server = try LoopbackServer(routes: [
            "/a.mp3": .fixed(body: bodies[0], headers: [("Content-Type", "audio/mpeg")]),
            "/b.mp3": .fixed(body: bodies[1], headers: [("Content-Type", "audio/mpeg")]),
        ])
        let requests = ["a", "b"].enumerated().map { id, name in
            TransferRequest(id: id, url: server.url("/\(name).mp3"), partialPath: directory.path("\(name).part"), expectedLength: 300_000)
        }
        let started = ContinuousClock.now
        let events = try await run(requests, settings: .init(rateLimit: 200_000, http: HTTPSettings(stallTimeout: 10)))
        let elapsed = ContinuousClock.now - started
        #expect(completed(events).count == 2)
        for (id, name) in ["a", "b"].enumerated() {
            #expect(try Data(contentsOf: URL(filePath: directory.path("\(name).part"))) == bodies[id])
        }
        // 600,000 bytes at 200,000 a second, for both together: three seconds. A lower bound only
        // (a slow machine can only take longer); loopback without the limit takes milliseconds.
        #expect(elapsed >= .seconds(2), "\(elapsed)")
    }

    @Test func failuresAreReportedPerFileWhileTheOthersSucceed() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let audio = Self.body(1, size: 50_000)
        let server = try LoopbackServer(routes: [
            "/ok.mp3": .fixed(body: audio, headers: [("Content-Type", "audio/mpeg")]),
            "/missing.mp3": .status(404),
            "/broken.mp3": .status(503),
            "/login.mp3": .fixed(body: Data("<!DOCTYPE html><html><body>Sign in</body></html>".utf8), headers: [("Content-Type", "text/html")]),
            "/sneaky.mp3": .fixed(body: Data("  <html><body>Expired</body></html>".utf8), headers: [("Content-Type", "audio/mpeg")]),
            "/cut.mp3": .cut(afterBytes: 1000, body: audio),
            "/stalled.mp3": .stall(afterBytes: 1000, body: audio),
        ])
        let names = ["ok", "missing", "broken", "login", "sneaky", "cut", "stalled"]
        let requests = names.enumerated().map { TransferRequest(id: $0, url: server.url("/\($1).mp3"), partialPath: directory.path("\($1).part")) }
        let events = try await run(requests, settings: .init(concurrency: 7, connectionsPerHost: 7, http: HTTPSettings(stallTimeout: 1)))
        #expect(completed(events).keys.sorted() == [0])
        #expect(try Data(contentsOf: URL(filePath: directory.path("ok.part"))) == audio)
        let failed = failures(events)
        #expect(failed[1]?.kind == .http(.status(404, url: server.url("/missing.mp3"), retryAfter: nil)))
        #expect(failed[2].map { if case .http(let error) = $0.kind { error.kind == .status(503) } else { false } } == true)
        #expect(failed[3]?.kind == .htmlInsteadOfMedia)
        #expect(failed[4]?.kind == .htmlInsteadOfMedia)
        #expect(failed[5].map { if case .http(let error) = $0.kind { error.kind == .connectionLost } else { false } } == true)
        #expect(failed[6].map { if case .http(let error) = $0.kind { error.kind == .timedOut } else { false } } == true)
        // Nothing of a refused response is written.
        #expect(try Data(contentsOf: URL(filePath: directory.path("login.part"))).isEmpty)
    }

    @Test func compressedMediaIsStoredDecoded() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let audio = Self.body(3, size: 70_000)
        // A misconfigured server that gzips media although the request asked for identity.
        let gzipped = try await Self.gzip(audio)
        let server = try LoopbackServer(routes: ["/ep.mp3": .fixed(body: gzipped, headers: [("Content-Encoding", "gzip"), ("Content-Type", "audio/mpeg")])])
        let events = try await run([TransferRequest(id: 1, url: server.url("/ep.mp3"), partialPath: directory.path("ep.part"))])
        #expect(completed(events)[1] != nil)
        #expect(try Data(contentsOf: URL(filePath: directory.path("ep.part"))) == audio)
        #expect(server.requests.first?.header("Accept-Encoding") == "identity")
    }

    @Test func redirectsAreFollowedAndTheFinalURLReported() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let audio = Self.body(4, size: 10_000)
        let server = try LoopbackServer(routes: [
            "/feed/ep.mp3": .redirect(to: "/tracker/ep.mp3"), "/tracker/ep.mp3": .redirect(to: "/cdn/ep.mp3", status: 307),
            "/cdn/ep.mp3": .fixed(body: audio, headers: [("ETag", "\"e1\"")]),
        ])
        let events = try await run([TransferRequest(id: 1, url: server.url("/feed/ep.mp3"), partialPath: directory.path("ep.part"))])
        let done = try #require(completed(events)[1])
        #expect(done.effectiveURL == server.url("/cdn/ep.mp3"))
        #expect(done.etag == "\"e1\"")
    }

    /// A feed that moved for good is known by where its permanent redirects (301, 308) lead, as
    /// long as every hop before is permanent too: a temporary one ends the move.
    @Test func aPermanentMoveIsTheAddressOnlyWhileEveryHopIsPermanent() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let server = try LoopbackServer(routes: [
            "/a": .redirect(to: "/b", status: 301),
            "/b": .redirect(to: "/c", status: 308),
            "/c": .redirect(to: "/d", status: 302),
            "/d": .fixed(body: Data("<rss/>".utf8)),
        ])
        let events = try await run([TransferRequest(id: 1, url: server.url("/a"), partialPath: directory.path("feed.part"), expectsMedia: false)])
        let done = try #require(completed(events)[1])
        #expect(done.permanentTarget == server.url("/c"))
        #expect(done.effectiveURL == server.url("/d"))
    }

    @Test func aRedirectsNoteIsNeverWrittenAndAnEndlessOneIsCut() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let audio = Self.body(5, size: 10_000)
        let note = Data(repeating: UInt8(ascii: "<"), count: 4 * 1024 * 1024)
        let server = try LoopbackServer(routes: [
            "/feed/ep.mp3": .fixed(status: 302, body: note, headers: [("Location", "/cdn/ep.mp3"), ("Content-Type", "text/html")]),
            "/cdn/ep.mp3": .fixed(body: audio),
        ])
        let events = try await run([TransferRequest(id: 1, url: server.url("/feed/ep.mp3"), partialPath: directory.path("ep.part"))])
        #expect(completed(events)[1]?.bytes == Int64(audio.count))
        #expect(try Data(contentsOf: URL(filePath: directory.path("ep.part"))) == audio)
    }

    @Test func aRefusedRedirectEndsTheTransferBeforeTheNextHop() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let server = try LoopbackServer(routes: ["/ep.mp3": .redirect(to: "/cdn/ep.mp3"), "/cdn/ep.mp3": .fixed(body: Self.body(6, size: 100))])
        let events = try await run([TransferRequest(id: 1, url: server.url("/ep.mp3"), partialPath: directory.path("ep.part"))],
            settings: .init(http: HTTPSettings(stallTimeout: 2, maxRedirects: 0)))
        #expect(failures(events)[1].map { if case .http(let error) = $0.kind { error.kind == .tooManyRedirects } else { false } } == true)
        #expect(server.requestCount(path: "/cdn/ep.mp3") == 0)
    }

    @Test func cancellingStopsARunningTransfer() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let server = try LoopbackServer(routes: ["/slow": .stall(afterBytes: 10, body: Data(count: 100_000))])
        let events = try await run([TransferRequest(id: 9, url: server.url("/slow"), partialPath: directory.path("slow.part"))]) { engine in
            engine.cancel(9)
        }
        #expect(failures(events)[9]?.kind == .cancelled)
    }

    @Test func unwritableDestinationFailsLocally() async throws {
        let server = try LoopbackServer(routes: ["/a": .fixed(body: Data(count: 10))])
        let events = try await run([TransferRequest(id: 1, url: server.url("/a"), partialPath: "/nonexistent-dir/a.part")])
        #expect(failures(events)[1].map { if case .local = $0.kind { true } else { false } } == true)
    }

    /// `data` gzip-compressed by the system's gzip.
    private static func gzip(_ data: Data) async throws -> Data {
        let directory = try TemporaryDirectory(prefix: "gzip")
        let input = directory.path("in")
        try data.write(to: URL(filePath: input))
        let result = try await ChildProcess(URL(filePath: "/bin/gzip"), ["-k", "-9", input]).finish()
        #expect(result.status == 0)
        return try Data(contentsOf: URL(filePath: input + ".gz"))
    }

    // MARK: Feeds (issue 28)

    @Test func feedsHaveSlotsOfTheirOwnBesideLongDownloads() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let server = try LoopbackServer()
        let episode = Self.body(1, size: 200_000)
        server.setRoute("/episode.mp3", .slow(body: episode, chunkSize: 20_000, interval: .milliseconds(200)))
        server.setRoute("/feed.xml", .fixed(body: Data("<rss/>".utf8)))
        var feeds = (1...3).map { TransferRequest(id: 10 + $0, url: server.url("/feed.xml"), partialPath: directory.path("feed\($0).part"), expectsMedia: false) }
        for index in feeds.indices { feeds[index].lane = .feed }
        let settings = TransferEngine.Settings(concurrency: 1, feedConcurrency: 2, http: HTTPSettings(stallTimeout: 5))
        let episodeRequest = TransferRequest(id: 1, url: server.url("/episode.mp3"), partialPath: directory.path("episode.part"), expectsMedia: false)
        let events = try await run([episodeRequest] + feeds, settings: settings)
        let ends = events.compactMap { if case .completed(let done) = $0 { done.id } else { nil } }
        #expect(ends.last == 1, "the feeds did not wait for the episode's only slot: \(ends)")
        #expect(Set(ends) == [1, 11, 12, 13])
    }

    @Test func aServerThatSaysNothingEndsAtTheFirstByteTimeout() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let server = try LoopbackServer(routes: ["/silent": .noResponse])
        var request = TransferRequest(id: 1, url: server.url("/silent"), partialPath: directory.path("silent.part"), expectsMedia: false)
        request.firstByteTimeout = .milliseconds(500)
        let failure = try #require(failures(try await run([request]))[1])
        #expect(failure.kind == .noAnswer(.milliseconds(500)))
        #expect(failure.hostDidNotAnswer)
        #expect(failure.reason.hasPrefix("no answer from \(server.url("/silent")) within 500 ms;"), "\(failure.reason)")
    }

    @Test func aTransferPastItsTimeLimitEndsAndSaysSo() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let server = try LoopbackServer(routes: ["/drip": .slow(body: Self.body(2, size: 100_000), chunkSize: 2_000, interval: .milliseconds(100))])
        var request = TransferRequest(id: 1, url: server.url("/drip"), partialPath: directory.path("drip.part"), expectsMedia: false)
        request.timeLimit = .seconds(1)
        request.firstByteTimeout = .seconds(1)
        let failure = try #require(failures(try await run([request]))[1])
        #expect(failure.kind == .overTime(.seconds(1)))
        #expect(failure.received > 0 && !failure.hostDidNotAnswer, "it answered, slowly")
    }

    @Test func aNotModifiedAnswerLeavesNoFileAndAChangedOneDoes() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let body = Data("<rss><channel><title>T</title></channel></rss>".utf8)
        let server = try LoopbackServer(routes: ["/feed.xml": .handler { request in
            request.header("If-None-Match") == "\"v1\"" ? .status(304, body: Data()) : .fixed(body: body, headers: [("ETag", "\"v2\"")])
        }])
        var unchanged = TransferRequest(id: 1, url: server.url("/feed.xml"), partialPath: directory.path("1.part"), expectsMedia: false)
        unchanged.headers = ["If-None-Match: \"v1\""]
        unchanged.acceptsNotModified = true
        var changed = unchanged
        changed.id = 2
        changed.partialPath = directory.path("2.part")
        changed.headers = ["If-None-Match: \"v0\""]
        let done = completed(try await run([unchanged, changed]))
        #expect(done[1]?.status == 304)
        #expect(!FileManager.default.fileExists(atPath: directory.path("1.part")), "a 304 writes no file")
        #expect(done[2]?.status == 200 && done[2]?.etag == "\"v2\"")
        #expect(FileManager.default.contents(atPath: directory.path("2.part")) == body)
    }

    @Test func aWebPageWhereAFeedWasAskedForIsRefusedOnItsFirstBytes() async throws {
        let directory = try TemporaryDirectory(prefix: "engine")
        let page = Data(("<!DOCTYPE html><html>" + String(repeating: "<p>filler</p>", count: 200_000) + "</html>").utf8)
        let server = try LoopbackServer(routes: ["/show": .fixed(body: page, headers: [("Content-Type", "application/rss+xml")])])
        var request = TransferRequest(id: 1, url: server.url("/show"), partialPath: directory.path("show.part"), expectsMedia: false)
        request.lane = .feed
        let failure = try #require(failures(try await run([request]))[1])
        #expect(failure.kind == .htmlInsteadOfMedia)
        #expect(failure.bytes == 0, "nothing of the page was kept")
    }

    /// An answer bringing more than the request's `goAheadAbove` waits with its body unwritten
    /// (the caller checks the room first): it is written once told to go ahead, and a cancel
    /// leaves the partial file as it was; a smaller answer never waits.
    @Test func anAnswerOverItsLimitWaitsUnwrittenForTheGoAhead() async throws {
        let directory = try TemporaryDirectory(prefix: "engine-go-ahead")
        let large = Self.body(7, size: 300_000)
        let small = Self.body(8, size: 500)
        let server = try LoopbackServer(routes: ["/large": .fixed(body: large), "/small": .fixed(body: small)])
        let requests = [(1, "/large"), (2, "/large"), (3, "/small")].map { id, path in
            var request = TransferRequest(id: id, url: server.url(path), partialPath: directory.path("\(id).part"), expectsMedia: false)
            request.goAheadAbove = 1000
            return request
        }
        let events = Mutex<[TransferEvent]>([])
        let (answers, answered) = AsyncStream<TransferResponse>.makeStream()
        let (ends, ended) = AsyncStream<Void>.makeStream()
        let engine = try TransferEngine(settings: .init(http: HTTPSettings(stallTimeout: 2))) { turn in
            events.withLock { $0.append(contentsOf: turn) }
            for event in turn {
                switch event {
                case .responded(let answer): answered.yield(answer)
                case .completed, .failed: ended.yield()
                case .started, .progress, .filled: break
                }
            }
        }
        defer { engine.shutdown() }
        for request in requests { engine.start(request) }
        var waited: [Int] = []
        for await answer in answers {
            #expect(answer.awaitsGoAhead == (answer.id != 3), "\(answer)")
            if answer.awaitsGoAhead {
                // Its write callback held the first piece before the event went out.
                #expect(FileIO.regularFileSize(directory.path("\(answer.id).part")) == 0, "nothing written while it waits")
                waited.append(answer.id)
                if answer.id == 1 { engine.goAhead(1) } else { engine.cancel(2) }
            }
            if waited.count == 2 { break }
        }
        var count = 0
        let deadline = Task {
            try await Task.sleep(for: .seconds(60))
            ended.finish()
        }
        for await _ in ends {
            count += 1
            if count == 3 { break }
        }
        deadline.cancel()
        #expect(count == 3)
        let all = events.withLock { $0 }
        #expect(completed(all)[1]?.bytes == Int64(large.count))
        #expect(try Data(contentsOf: URL(filePath: directory.path("1.part"))) == large)
        #expect(failures(all)[2]?.kind == .cancelled && failures(all)[2]?.bytes == 0)
        #expect(FileIO.regularFileSize(directory.path("2.part")) == 0)
        #expect(try Data(contentsOf: URL(filePath: directory.path("3.part"))) == small)
    }
}
