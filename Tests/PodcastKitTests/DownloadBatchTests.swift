import Foundation
import Glibc
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

/// A batch driven directly, on its own thread: a real store, a real engine, the loopback server.
@Suite(.timeLimit(.minutes(5))) struct DownloadBatchTests {
    /// Runs `work` on a thread of its own (a batch blocks its thread) and returns its result, or
    /// fails the test when it takes more than a minute.
    private static func runBounded(_ work: @escaping @Sendable () throws -> BatchOutcome) async throws -> BatchOutcome? {
        let (ended, continuation) = AsyncStream<Result<BatchOutcome, any Error>>.makeStream()
        guard BackgroundThread({ continuation.yield(Result { try work() }) }) != nil else {
            Issue.record("no thread for the batch")
            return nil
        }
        let deadline = Task {
            try await Task.sleep(for: .seconds(60))
            continuation.finish()
        }
        defer { deadline.cancel() }
        for await result in ended { return try result.get() }
        Issue.record("the batch did not end within a minute")
        return nil
    }

    @Test func anInterruptBeforeTheClaimsEndStillRecordsAndPausesEveryEpisode() async throws {
        let directory = try TemporaryDirectory(prefix: "batch")
        let count = 40
        // Every transfer stalls after its first bytes, so none can end before the interrupt.
        let body = Data(repeating: 7, count: 50_000)
        var routes: [String: ServerRoute] = [:]
        for number in 1...count {
            routes["/e\(number).mp3"] = .stall(afterBytes: 1_000, body: body, headers: [("Content-Type", "audio/mpeg")])
        }
        let server = try LoopbackServer(routes: routes)
        let listing = Listing(source: .feed(url: server.url("/feed.xml"), title: "Show"), items: (1...count).map {
            ListingItem(
                number: $0, identity: "ep-\($0)", title: "Episode \($0)", enclosureURL: server.url("/e\($0).mp3"),
                enclosureType: "audio/mpeg", enclosureLength: Int64(body.count))
        })
        let items = DownloadItem.items(Array(1...count), of: listing)
        let database = directory.path("state.sqlite")
        let episodes = directory.path("Episodes")

        let outcome = try await Self.runBounded {
            let batch = DownloadBatch(store: try StateStore(path: database), episodesDirectory: episodes, settings: .init(concurrency: 2))
            // Ctrl-C before the batch starts: it is seen after the first group (16) is claimed,
            // so the other 24 are claimed while the batch stops.
            batch.interrupter()
            return try batch.run(items) { _ in }
        }

        let results = try #require(outcome).results
        #expect(outcome?.stop == .interrupted)
        #expect(results.map(\.item.number) == Array(1...count))
        #expect(results.allSatisfy { $0.state == .paused }, "\(results.map(\.state))")
        let records = try StateStore(path: database).downloads.records(feed: listing.source.feedKey)
        #expect(records.count == count, "every episode has a record for podcast resume")
        #expect(records.values.allSatisfy { $0.state == .paused })
    }

    /// A disk that fills mid-download (pwrite fails with ENOSPC past 100,000 bytes of any file,
    /// through `FileIO.calls`, which the batch's and the engine's threads take from the test):
    /// the batch stops every download, each is paused with the bytes it had, and nothing fails.
    @Test func aDiskThatFillsStopsTheBatchAndPausesEveryEpisodeWithItsBytes() async throws {
        let directory = try TemporaryDirectory(prefix: "batch")
        let body = Data(repeating: 5, count: 200_000)
        var routes: [String: ServerRoute] = [:]
        for number in 1...3 {
            routes["/e\(number).mp3"] = .fixed(body: body, headers: [("Content-Type", "audio/mpeg")])
        }
        let server = try LoopbackServer(routes: routes)
        let listing = Listing(source: .feed(url: server.url("/feed.xml"), title: "Show"), items: (1...3).map {
            ListingItem(
                number: $0, identity: "ep-\($0)", title: "Episode \($0)", enclosureURL: server.url("/e\($0).mp3"),
                enclosureType: "audio/mpeg", enclosureLength: Int64(body.count))
        })
        let items = DownloadItem.items([1, 2, 3], of: listing)
        let database = directory.path("state.sqlite")
        let episodes = directory.path("Episodes")
        var full = FileSystemCalls.system
        full.pwrite = { descriptor, bytes, count, offset in
            guard offset + off_t(count) > 100_000 else { return Glibc.pwrite(descriptor, bytes, count, offset) }
            errno = ENOSPC
            return -1
        }

        let outcome = try await FileIO.$calls.withValue(full) {
            try await Self.runBounded {
                let batch = DownloadBatch(store: try StateStore(path: database), episodesDirectory: episodes, settings: .init(concurrency: 2))
                return try batch.run(items) { _ in }
            }
        }

        guard case .storageFull(let reason)? = outcome?.stop else {
            Issue.record("the batch did not stop for a full disk: \(String(describing: outcome?.stop))")
            return
        }
        #expect(reason.contains("No space left on device"), "\(reason)")
        let results = try #require(outcome).results
        #expect(results.allSatisfy { $0.state == .paused }, "\(results.map(\.state))")
        let records = try StateStore(path: database).downloads.records(feed: listing.source.feedKey)
        #expect(records.values.allSatisfy { $0.state == .paused && $0.bytes <= 100_000 }, "\(records.values.map { ($0.state, $0.bytes) })")
        #expect(records.values.contains { $0.resume.durableBytes > 0 }, "no episode got any bytes before the disk filled")
        for record in records.values where record.resume.durableBytes > 0 {
            // What the record vouches for is on disk, for podcast resume (an episode stopped
            // before its transfer started has no file yet, and vouches for nothing).
            let partial = try #require(record.resume.partialPath)
            #expect(FileIO.regularFileSize(partial).map { $0 >= record.resume.durableBytes } == true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: episodes).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    /// Episodes handed over while the batch runs (the worker's queue) are downloaded by the same
    /// batch, in the slots the first ones leave, not after it ends.
    @Test func episodesHandedOverWhileRunningAreDownloadedToo() async throws {
        let directory = try TemporaryDirectory(prefix: "batch")
        let body = Data(repeating: 9, count: 30_000)
        var routes: [String: ServerRoute] = [:]
        for number in 1...4 {
            routes["/e\(number).mp3"] = .fixed(body: body, headers: [("Content-Type", "audio/mpeg")])
        }
        let server = try LoopbackServer(routes: routes)
        let listing = Listing(source: .feed(url: server.url("/feed.xml"), title: "Show"), items: (1...4).map {
            ListingItem(
                number: $0, identity: "ep-\($0)", title: "Episode \($0)", enclosureURL: server.url("/e\($0).mp3"),
                enclosureType: "audio/mpeg", enclosureLength: Int64(body.count))
        })
        let first = DownloadItem.items([1, 2], of: listing)
        let later = [DownloadItem.items([3], of: listing), DownloadItem.items([4], of: listing)]
        let database = directory.path("state.sqlite")
        let episodes = directory.path("Episodes")

        let outcome = try await Self.runBounded {
            let batch = DownloadBatch(store: try StateStore(path: database), episodesDirectory: episodes, settings: .init(concurrency: 2))
            var handOvers = later
            return try batch.run(first, refill: { handOvers.isEmpty ? [] : handOvers.removeFirst() }) { _ in }
        }

        let results = try #require(outcome).results
        #expect(results.map(\.item.number) == [1, 2, 3, 4])
        #expect(results.allSatisfy { $0.state == .downloaded }, "\(results.map(\.state))")
        for result in results {
            #expect(try Data(contentsOf: URL(filePath: try #require(result.path))) == body)
        }
    }

}
