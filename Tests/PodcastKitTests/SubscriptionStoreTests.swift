import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// The state store's side of subscriptions: the baseline and new episodes recorded with a
/// fetch, moves that carry the downloads along, one subscription per podcast whatever address
/// names it, and what `update` finds waiting.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionStoreTests {
    private static func items(_ numbers: ClosedRange<Int>, url: (Int) -> String = { "http://h/\($0).mp3" }) -> [ListingItem] {
        numbers.reversed().enumerated().map { index, number in
            ListingItem(
                number: index + 1, identity: "g\(number)", title: "Episode \(number)", enclosureURL: url(number),
                published: Date(timeIntervalSince1970: 1_790_000_000 + Double(number) * 86_400), guid: "g\(number)")
        }
    }

    private func store() throws -> (StateStore, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "subscriptions")
        return (try StateStore(path: directory.path("state.sqlite")), directory)
    }

    @Test func theFirstFetchIsTheBaselineAndLaterOnesBringNews() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        let (subscription, status) = try store.subscriptions.subscribe(url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init(first: 2))
        #expect(status == .added)
        #expect(try store.subscriptions.recordRefresh(.init(id: subscription.id, address: subscription.url, result: .updated, episodes: Self.items(1...5))).new == 2)
        let refreshed = try #require(try store.subscriptions.find(url: "http://h/feed.xml"))
        #expect(refreshed.hasBaseline)
        #expect(try store.subscriptions.pendingEpisodes(of: refreshed).map(\.identity) == ["g5", "g4"])

        // The same episodes again, and two more: only those are new.
        #expect(try store.subscriptions.recordRefresh(.init(id: subscription.id, address: subscription.url, result: .updated, episodes: Self.items(1...7))).new == 2)
        #expect(try store.subscriptions.pendingEpisodes(of: refreshed).map(\.identity) == ["g7", "g6", "g5", "g4"])
        try store.subscriptions.markEpisodesDone(["g7", "g5"], of: subscription.id)
        #expect(try store.subscriptions.pendingEpisodes(of: refreshed).map(\.identity) == ["g6", "g4"])
        #expect(try store.subscriptions.catchUp([subscription.id]) == 2)
        #expect(try store.subscriptions.pendingEpisodes(of: refreshed).isEmpty)
        let summary = try #require(try store.subscriptions.summaries().first)
        #expect(summary.episodes == 7 && summary.new == 0)
    }

    @Test func aMoveCarriesTheDownloadsAndTheOldAddressStillNamesTheSubscription() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        let (subscription, _) = try store.subscriptions.subscribe(url: "http://old/feed.xml", title: "Show", htmlURL: nil, change: .init())
        _ = try store.subscriptions.recordRefresh(.init(id: subscription.id, address: subscription.url, result: .updated, episodes: Self.items(1...3)))
        var record = DownloadRecord(feed: "http://old/feed.xml", identity: "g3", podcastTitle: "Show", title: "Episode 3", url: "http://h/3.mp3", mediaType: nil, published: nil)
        record.state = .downloaded
        record.path = directory.path("3.mp3")
        try store.downloads.save(record)

        let triage = try store.subscriptions.recordRefresh(.init(id: subscription.id, address: "https://new/feed.xml", result: .moved, episodes: Self.items(1...3)))
        #expect(triage.moveRefused == nil && triage.new == 0)
        #expect(try store.subscriptions.find(url: "https://new/feed.xml")?.id == subscription.id)
        #expect(try store.subscriptions.find(url: "http://old/feed.xml")?.url == "https://new/feed.xml")
        #expect(try store.downloads.record(EpisodeKey(feed: "https://new/feed.xml", identity: "g3"))?.state == .downloaded)
        #expect(try store.downloads.record(EpisodeKey(feed: "http://old/feed.xml", identity: "g3")) == nil)
        // Subscribing to the old address again is the same subscription.
        let (again, status) = try store.subscriptions.subscribe(url: "http://old/feed.xml", title: "Show", htmlURL: nil, change: .init(keep: .some(3)))
        #expect(again.id == subscription.id && status == .changed && again.settings.keep == 3)
        #expect(try store.subscriptions.all().count == 1)
    }

    @Test func aMoveOntoAnotherSubscriptionIsRefusedAndSaid() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        let (first, _) = try store.subscriptions.subscribe(url: "http://a/feed.xml", title: "A", htmlURL: nil, change: .init())
        _ = try store.subscriptions.subscribe(url: "http://b/feed.xml", title: "B", htmlURL: nil, change: .init())
        let triage = try store.subscriptions.recordRefresh(.init(id: first.id, address: "http://b/feed.xml", result: .moved))
        #expect(triage.moveRefused?.contains("\"B\"") == true)
        #expect(try store.subscriptions.all().map(\.url).sorted() == ["http://a/feed.xml", "http://b/feed.xml"])
    }

    @Test func episodesAlreadyDownloadedOrFailedForGoodAreNotPending() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        let (subscription, _) = try store.subscriptions.subscribe(url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init(first: 3))
        _ = try store.subscriptions.recordRefresh(.init(id: subscription.id, address: subscription.url, result: .updated, episodes: Self.items(1...3)))
        var downloaded = DownloadRecord(feed: subscription.url, identity: "g3", podcastTitle: "Show", title: "Episode 3", url: "http://h/3.mp3", mediaType: nil, published: nil)
        downloaded.state = .downloaded
        downloaded.path = directory.path("3.mp3")
        var gone = DownloadRecord(feed: subscription.url, identity: "g2", podcastTitle: "Show", title: "Episode 2", url: "http://h/2.mp3", mediaType: nil, published: nil)
        gone.state = .failed
        gone.finalError = true
        try store.downloads.save(downloaded)
        try store.downloads.save(gone)
        #expect(try store.subscriptions.pendingEpisodes(of: subscription).map(\.identity) == ["g1"])
        // The failed one comes back when its address changes.
        _ = try store.subscriptions.recordRefresh(.init(id: subscription.id, address: subscription.url, result: .updated,
                                          episodes: Self.items(1...3) { "http://h/\($0)-v2.mp3" }))
        #expect(try store.subscriptions.pendingEpisodes(of: subscription).map(\.identity) == ["g2", "g1"])
        #expect(try store.subscriptions.summaries().first?.new == 2)
    }

    @Test func ownFilesAreThoseItsUpdatesDownloadedOnly() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        let (subscription, _) = try store.subscriptions.subscribe(url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init())
        let byUpdate: Int? = subscription.id
        for (feed, identity, origin, name) in [
            (subscription.url, "g1", byUpdate, "mine.mp3"), ("http://other/feed.xml", "g1", nil, "other.mp3"),
            (subscription.url, "g2", nil, "by-hand.mp3"),
        ] {
            var record = DownloadRecord(feed: feed, identity: identity, podcastTitle: "Show", title: "E", url: "http://h/1.mp3", mediaType: nil, published: nil)
            record.state = .downloaded
            record.path = directory.path(name)
            record.subscription = origin
            try store.downloads.save(record)
        }
        #expect(try store.subscriptions.filesDownloaded(by: subscription).map(\.path) == [directory.path("mine.mp3")])
        try store.downloads.forgetDeleted(EpisodeKey(feed: subscription.url, identity: "g1"))
        #expect(try store.subscriptions.filesDownloaded(by: subscription).isEmpty)
    }

    @Test func unsubscribingLeavesNoFileToTheNextSubscriptionWithTheSameID() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        let (first, _) = try store.subscriptions.subscribe(url: "http://h/a.xml", title: "A", htmlURL: nil, change: .init())
        var record = DownloadRecord(feed: first.url, identity: "g1", podcastTitle: "A", title: "E", url: "http://h/1.mp3", mediaType: nil, published: nil)
        record.state = .downloaded
        record.path = directory.path("a.mp3")
        record.subscription = first.id
        try store.downloads.save(record)
        try store.subscriptions.unsubscribe(first.id)
        let (second, _) = try store.subscriptions.subscribe(url: "http://h/b.xml", title: "B", htmlURL: nil, change: .init())
        #expect(second.id != first.id, "a number is never given twice")
        #expect(try store.subscriptions.filesDownloaded(by: second).isEmpty)
        #expect(try store.libraryFiles.recordedFile(path: directory.path("a.mp3"))?.subscription == nil)
    }
}
