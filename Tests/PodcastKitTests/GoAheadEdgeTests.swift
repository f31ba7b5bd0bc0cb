import Foundation
@testable import PodcastHTTP
@testable import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Synchronization
import Testing

/// Transfers that wait for the go-ahead (`TransferRequest.goAheadAbove`) beside what else
/// pauses, continues or redirects them: each one that is told to go ahead ends, byte for byte.
@Suite(.timeLimit(.minutes(2))) struct GoAheadEdgeTests {
    /// Runs `requests`; each answer that waits gets `decide` called (on a task) with it, and each
    /// `.filled` `grew`; returns every event once all ended (bounded by 30 s).
    private func run(
        _ requests: [TransferRequest], settings: TransferEngine.Settings,
        grew: @escaping @Sendable (TransferEngine, Int, Int64) async -> Void = { _, _, _ in },
        decide: @escaping @Sendable (TransferEngine, TransferResponse) async -> Void
    ) async throws -> [TransferEvent] {
        let events = Mutex<[TransferEvent]>([])
        let (stream, continuation) = AsyncStream<TransferEvent>.makeStream()
        let engine = try TransferEngine(settings: settings) { turn in
            events.withLock { $0.append(contentsOf: turn) }
            for event in turn { continuation.yield(event) }
        }
        for request in requests { engine.start(request) }
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            continuation.finish()
        }
        var ended = 0
        for await event in stream {
            switch event {
            case .responded(let answer) where answer.awaitsGoAhead: await decide(engine, answer)
            case .filled(let id, let bytes): await grew(engine, id, bytes)
            case .completed, .failed: ended += 1
            default: break
            }
            if ended == requests.count { break }
        }
        deadline.cancel()
        engine.shutdown()
        #expect(ended == requests.count, "only \(ended) of \(requests.count) transfers ended")
        return events.withLock { $0 }
    }

    private static func body(_ seed: Int, size: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7) })
    }

    private func outcome(_ events: [TransferEvent], _ id: Int) -> String {
        for event in events {
            if case .completed(let done) = event, done.id == id { return "completed \(done.bytes)" }
            if case .failed(let failure) = event, failure.id == id { return "failed \(failure.kind) \(failure.bytes)" }
        }
        return "none"
    }

    /// The speed cap pauses transfers in the same write callback: the held first piece, handed
    /// over again at the go-ahead, goes through the cap as any other.
    @Test func withASpeedCapTheWaitingAnswerStillCompletes() async throws {
        let directory = try TemporaryDirectory(prefix: "red-go-rate")
        let large = Self.body(1, size: 400_000)
        let server = try LoopbackServer(routes: ["/large": .fixed(body: large)])
        var request = TransferRequest(id: 1, url: server.url("/large"), partialPath: directory.path("1.part"), expectsMedia: false)
        request.goAheadAbove = 1000
        let events = try await run([request], settings: .init(rateLimit: 400_000, http: HTTPSettings(stallTimeout: 2))) { engine, answer in
            engine.goAhead(answer.id)
        }
        #expect(outcome(events, 1) == "completed \(large.count)")
        #expect(try Data(contentsOf: URL(filePath: directory.path("1.part"))) == large)
    }

    /// A body that arrived whole with its headers, held by libcurl while it waits, still ends the
    /// transfer once it goes ahead; a chunked answer (no total) never waits.
    @Test func aSmallBodyAllInTheFirstReadCompletesAfterTheGoAhead() async throws {
        let directory = try TemporaryDirectory(prefix: "red-go-small")
        let small = Self.body(2, size: 5000)
        let server = try LoopbackServer(routes: ["/small": .fixed(body: small), "/chunk": .chunked(chunks: [small])])
        let requests = [(1, "/small"), (2, "/chunk")].map { id, path in
            var request = TransferRequest(id: id, url: server.url(path), partialPath: directory.path("\(id).part"), expectsMedia: false)
            request.goAheadAbove = 1000
            return request
        }
        let events = try await run(requests, settings: .init(http: HTTPSettings(stallTimeout: 2))) { engine, answer in
            engine.goAhead(answer.id)
        }
        #expect(outcome(events, 1) == "completed 5000")
        #expect(outcome(events, 2) == "completed 5000")
        let answers = events.compactMap { if case .responded(let r) = $0 { r } else { nil } }
        #expect(answers.first { $0.id == 1 }?.awaitsGoAhead == true)
        #expect(answers.first { $0.id == 2 }?.awaitsGoAhead == false, "\(answers)")
        #expect(try Data(contentsOf: URL(filePath: directory.path("1.part"))) == small)
    }

    /// An answer of no known size waits after each piece it announces (`Transfer.filledPiece`),
    /// its partial file holding exactly what it announced until it is told to go on.
    @Test func anAnswerOfNoKnownSizeWaitsAfterEachPieceItAnnounces() async throws {
        let directory = try TemporaryDirectory(prefix: "red-go-grow")
        let large = Self.body(5, size: 9 * 1024 * 1024)
        let chunks = stride(from: 0, to: large.count, by: 256 * 1024).map { Data(large[$0..<min(large.count, $0 + 256 * 1024)]) }
        let server = try LoopbackServer(routes: ["/chunked": .chunked(chunks: chunks)])
        var request = TransferRequest(id: 1, url: server.url("/chunked"), partialPath: directory.path("1.part"), expectsMedia: false)
        request.goAheadAbove = 1000
        let held = Mutex<[Int64]>([])
        let events = try await run([request], settings: .init(http: HTTPSettings(stallTimeout: 5)), grew: { engine, id, bytes in
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.path("1.part"))[.size] as? Int64) ?? -1
            held.withLock { $0.append(size - bytes) }
            engine.goAhead(id)
        }) { engine, answer in
            engine.goAhead(answer.id)
        }
        #expect(outcome(events, 1) == "completed \(large.count)")
        #expect(held.withLock { $0 } == [0, 0], "the file grew past what was announced before the go-ahead")
        #expect(try Data(contentsOf: URL(filePath: directory.path("1.part"))) == large)
    }

    /// A 206 to a resume waits with the partial file as it was and appends after the go-ahead;
    /// a 200 to the range request (a server that ignores Range) waits too, and takes the file whole.
    @Test func aContinuedAnswerWaitsForTheRestOnly() async throws {
        let directory = try TemporaryDirectory(prefix: "red-go-206")
        let large = Self.body(3, size: 300_000)
        let server = try LoopbackServer(routes: ["/large": .file(body: large, etag: "\"e\""), "/ignores": .fixed(body: large, headers: [("ETag", "\"e\"")])])
        var requests: [TransferRequest] = []
        for (id, path) in [(1, "/large"), (2, "/ignores")] {
            try Data(large.prefix(100_000)).write(to: URL(filePath: directory.path("\(id).part")))
            var request = TransferRequest(
                id: id, url: server.url(path), partialPath: directory.path("\(id).part"), expectsMedia: false,
                resume: ResumePoint(offset: 100_000, etag: "\"e\"", lastModified: nil, total: nil))
            request.goAheadAbove = 150_000
            requests.append(request)
        }
        let events = try await run(requests, settings: .init(http: HTTPSettings(stallTimeout: 2))) { engine, answer in
            engine.goAhead(answer.id)
        }
        let answers = events.compactMap { if case .responded(let r) = $0 { r } else { nil } }
        #expect(answers.first { $0.id == 1 }?.awaitsGoAhead == true)
        #expect(answers.first { $0.id == 2 }?.awaitsGoAhead == true)
        #expect(outcome(events, 1) == "completed 300000")
        #expect(outcome(events, 2) == "completed 300000")
        #expect(try Data(contentsOf: URL(filePath: directory.path("1.part"))) == large)
        #expect(try Data(contentsOf: URL(filePath: directory.path("2.part"))) == large)
    }

    /// A redirect whose own answer is large: only the target's answer waits.
    @Test func aLargeRedirectBodyDoesNotWait() async throws {
        let directory = try TemporaryDirectory(prefix: "red-go-redirect")
        let large = Self.body(5, size: 300_000)
        let server = try LoopbackServer(routes: [
            "/hop": .fixed(status: 302, body: Self.body(9, size: 200_000), headers: [("Location", "/large")]),
            "/large": .fixed(body: large),
        ])
        var request = TransferRequest(id: 1, url: server.url("/hop"), partialPath: directory.path("1.part"), expectsMedia: false)
        request.goAheadAbove = 1000
        let events = try await run([request], settings: .init(http: HTTPSettings(stallTimeout: 2))) { engine, answer in
            engine.goAhead(answer.id)
        }
        let answers = events.compactMap { if case .responded(let r) = $0 { r } else { nil } }
        #expect(answers.map(\.total) == [Int64(large.count)], "the target's answer alone: \(answers)")
        #expect(outcome(events, 1) == "completed \(large.count)")
        #expect(try Data(contentsOf: URL(filePath: directory.path("1.part"))) == large)
    }
}
