import Foundation
@testable import PodcastHTTP
@testable import PodcastKit
import PodcastTestSupport
import Synchronization
import Testing

/// Red team of issue 28's deadlines at the engine: a time limit is a limit however small.
@Suite(.timeLimit(.minutes(5))) struct TransferEngineRedTeamTests {
    /// The events of one request run to its end (bounded).
    private func run(_ request: TransferRequest) async throws -> [TransferEvent] {
        let events = Mutex<[TransferEvent]>([])
        let (ended, continuation) = AsyncStream<Void>.makeStream()
        let engine = try TransferEngine(settings: .init(http: HTTPSettings(stallTimeout: 30))) { turn in
            events.withLock { $0.append(contentsOf: turn) }
            for event in turn {
                if case .completed = event { continuation.yield() }
                if case .failed = event { continuation.yield() }
            }
        }
        engine.start(request)
        let deadline = Task {
            try await Task.sleep(for: .seconds(60))
            continuation.finish()
        }
        for await _ in ended { break }
        deadline.cancel()
        engine.shutdown()
        return events.withLock { $0 }
    }

    /// FeedRound gives a feed's later page what is left of the feed's deadline (`deadline - now`)
    /// as its `timeLimit`; the engine hands libcurl whole milliseconds, so a rest under 1 ms
    /// becomes CURLOPT_TIMEOUT_MS 0, which is no limit at all: the page may then drip for as long
    /// as the stall timeout allows, far past `feed-timeout` (and `--feed-timeout 0.0001` makes
    /// every feed's limit 0 ms, so no limit, with a first-byte timeout of 0). A time limit of
    /// 0.5 ms must end the transfer over time, not let it run for three seconds.
    @Test func aTimeLimitUnderAMillisecondIsStillALimit() async throws {
        let directory = try TemporaryDirectory(prefix: "engine-redteam")
        let server = try LoopbackServer()
        server.setRoute("/drip.xml", .slow(
            body: Data(repeating: UInt8(ascii: " "), count: 10_000), chunkSize: 1000, interval: .milliseconds(300),
            headers: [("Content-Type", "application/rss+xml")]))
        var request = TransferRequest(
            id: 1, url: server.url("/drip.xml"), partialPath: directory.path("drip.part"), expectsMedia: false, writesBack: false)
        request.lane = .feed
        request.timeLimit = .microseconds(500)

        let events = try await run(request)
        let completed = events.contains { if case .completed = $0 { true } else { false } }
        #expect(!completed, "a transfer limited to 0.5 ms ran to its end")
        // Ended by its limit, before the body's end (not by a clock read here: under load, how
        // long the test waits says nothing about the engine).
        let failure = events.compactMap { if case .failed(let failure) = $0 { failure } else { nil } }.first
        #expect(failure?.kind == .overTime(.microseconds(500)), "\(String(describing: failure))")
        #expect((failure?.bytes ?? .max) < 10_000)
    }
}
