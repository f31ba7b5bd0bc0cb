import Foundation
@testable import PodcastPlatform
import PodcastTestSupport
import Testing
@testable import PodcastKit

/// The worker lock and the store's side of background batches and stop requests.
@Suite(.timeLimit(.minutes(5))) struct BackgroundStoreTests {
    private static func settings(concurrency: Int = 3) -> QueuedSettings {
        var settings = Settings()
        settings.episodesDirectory = "/srv/podcasts"
        settings.engine.concurrency = concurrency
        return QueuedSettings(settings, secretsFile: nil)
    }

    private static func item(_ number: Int, url: String? = "http://127.0.0.1/\(UUID().uuidString).mp3") -> DownloadItem {
        DownloadItem(
            number: number, entry: ListingItem(number: number, identity: "ep-\(number)", title: "Episode \(number)", enclosureURL: url, guid: "g-\(number)"),
            feed: "http://127.0.0.1/feed.xml", podcastTitle: "Show")
    }

    /// A live process that is not this one: the parent of the test runner.
    private static var otherLiveOwner: ProcessOwner {
        ProcessOwner(pid: getppid(), boot: ProcessOwner.currentBoot, started: ProcessOwner.startTime(of: getppid()))
    }

    @Test func workerLockIsHeldByOneHolderAndFreeOnceReleased() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("worker.lock")
        let holder = try #require(try WorkerLock.acquire(at: path))
        #expect(try WorkerLock.acquire(at: path, patience: .milliseconds(50)) == nil)
        #expect(WorkerLock.isHeld(at: path))
        holder.release()
        #expect(!WorkerLock.isHeld(at: path))
        #expect(try WorkerLock.acquire(at: path, patience: .zero) != nil)
    }

    @Test func enqueuedEpisodesWaitUnownedAndDownloadedOnesSettleAtOnce() throws {
        let directory = try TemporaryDirectory()
        let store = try StateStore(path: directory.path("state.sqlite"))
        let finished = directory.path("done.mp3")
        #expect(FileManager.default.createFile(atPath: finished, contents: Data([1, 2, 3])))
        var done = DownloadRecord(feed: Self.item(1).feed, identity: "ep-1", podcastTitle: "Show", title: "Episode 1", url: "http://x/1", mediaType: nil, published: nil)
        done.state = .downloaded
        done.path = finished
        try store.downloads.save(done)

        let queued = try store.batches.enqueue([Self.item(1), Self.item(2), Self.item(3, url: nil)], settings: Self.settings(concurrency: 2), onComplete: "true")
        #expect(queued.queued == 1 && queued.settled == 2)
        let waiting = try #require(try store.downloads.record(EpisodeKey(feed: Self.item(2).feed, identity: "ep-2")))
        #expect(waiting.state == .queued && waiting.owner == nil)
        #expect(try store.batches.hasWork())

        let work = try #require(try store.batches.takeWork(for: .current))
        #expect(work.batch.settings == Self.settings(concurrency: 2))
        #expect(work.batch.settings.settings(secrets: nil, fallbackDirectory: "/elsewhere").engine.concurrency == 2)
        #expect(work.records.map(\.identity) == ["ep-2"])
        #expect(try store.downloads.record(EpisodeKey(feed: Self.item(2).feed, identity: "ep-2"))?.owner == .current)
        #expect(try store.batches.takeWork(for: .current) == nil)
        #expect(try !store.batches.hasWork())
    }

    @Test func aBatchFinishesOnceWhenEveryEpisodeHasSettled() throws {
        let directory = try TemporaryDirectory()
        let store = try StateStore(path: directory.path("state.sqlite"))
        let queued = try store.batches.enqueue([Self.item(1), Self.item(2)], settings: Self.settings(), onComplete: nil)
        var first = try #require(try store.downloads.record(EpisodeKey(feed: Self.item(1).feed, identity: "ep-1")))
        first.state = .downloaded
        first.path = directory.path("1.mp3")
        try store.downloads.save(first)
        #expect(try store.batches.settle(summaries: directory.path("batches")).isEmpty)

        try store.downloads.delete(EpisodeKey(feed: Self.item(2).feed, identity: "ep-2"))
        let finished = try store.batches.settle(summaries: directory.path("batches"))
        #expect(finished.map(\.id) == [queued.id])
        #expect(finished.first?.summaryPath == directory.path("batches") + "/\(queued.id).json")
        #expect(finished.first?.results.map(\.state) == [.downloaded, .cancelled])
        #expect(finished.first?.results.last?.error == "cancelled")
        #expect(try store.batches.settle(summaries: directory.path("batches")).isEmpty)
    }

    @Test func stopAsksTheLiveOwnerAndStopsOrphansInTheStore() throws {
        let directory = try TemporaryDirectory()
        let store = try StateStore(path: directory.path("state.sqlite"))
        _ = try store.batches.enqueue([Self.item(1), Self.item(2)], settings: Self.settings(), onComplete: nil)
        var running = try #require(try store.downloads.record(EpisodeKey(feed: Self.item(1).feed, identity: "ep-1")))
        running.state = .downloading
        running.owner = Self.otherLiveOwner
        try store.downloads.save(running)

        let outcome = try store.stopRequests.request(.pause, of: nil)
        #expect(outcome.asked.map(\.identity) == ["ep-1"])
        #expect(outcome.stopped.map(\.identity) == ["ep-2"])
        #expect(try store.downloads.record(EpisodeKey(feed: Self.item(2).feed, identity: "ep-2"))?.state == .paused)
        #expect(try store.stopRequests.take(for: .current).isEmpty)
        let taken = try store.stopRequests.take(for: Self.otherLiveOwner)
        #expect(taken.map(\.identity) == ["ep-1"] && taken.first?.request == .pause)
        #expect(try store.stopRequests.pending().isEmpty)

        let cancelled = try store.stopRequests.request(.cancel, of: [EpisodeKey(feed: Self.item(2).feed, identity: "ep-2")])
        #expect(cancelled.stopped.map(\.identity) == ["ep-2"])
        #expect(try store.downloads.record(EpisodeKey(feed: Self.item(2).feed, identity: "ep-2")) == nil)
    }
}
