import Foundation
@testable import PodcastKit
import Testing

/// `SubscriptionUpdate.record(of:)`: what the store records of a feed's fetch when it ends.
/// Unchanged, updated, moved (a permanent redirect or `itunes:new-feed-url` followed), gone or
/// failed; a feed read in part (a later page failed) keeps its episodes but not the validators
/// and digest of this read, so the next update reads it whole again. No server, no store.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionRefreshRecordTests {
    private static let feed = "http://h/feed.xml"
    private static let cacheEntry = FeedCacheEntry(
        url: feed, etag: "\"v2\"", lastModified: nil, bodyFile: "abc.xml", fetchedAt: Date(timeIntervalSince1970: 1_800_000_000))

    private static func page(_ guids: [String], next: String? = nil) -> FeedParser.Result {
        var feed = Feed(url: Self.feed)
        feed.title = "Show"
        feed.link = "http://h/show"
        feed.episodes = guids.map { guid in
            var episode = Episode(title: guid)
            episode.guid = guid
            episode.enclosure = Enclosure(url: "http://h/\(guid).mp3", type: "audio/mpeg", length: nil)
            return episode
        }
        feed.nextPageURL = next
        return FeedParser.Result(feed: feed, warnings: [])
    }

    /// A refresh that fetched the feed whole (digest `d2`) and read `guids`.
    private func readWhole(_ guids: [String], permanentTarget: String? = nil) -> FeedRefresh {
        var refresh = FeedRefresh(subscription: 7, url: Self.feed, last: .init(digest: "d1", etag: "\"v1\""))
        _ = refresh.answered(.init(status: 200, permanentTarget: permanentTarget, digest: "d2"))
        #expect(refresh.parsed(.success(Self.page(guids))) == .end(.updated))
        return refresh
    }

    @Test func anUnchangedFeedKeepsTheAnswersValidators() {
        var refresh = FeedRefresh(subscription: 7, url: Self.feed, last: .init(digest: "d1", etag: "\"v1\""))
        #expect(refresh.answered(.init(status: 304)) == .end(.unchanged))
        let record = SubscriptionUpdate.record(of: .init(refresh: refresh, ending: .unchanged, cacheEntry: Self.cacheEntry))
        #expect(record.id == 7 && record.address == Self.feed)
        #expect(record.result == .unchanged)
        #expect(record.cacheEntry == Self.cacheEntry)
        #expect(record.episodes == nil && record.error == nil && record.digest == nil)
    }

    @Test func anUnchangedFeedThatRedirectsPermanentlyIsRecordedAsMovedToItsNewAddress() {
        var refresh = FeedRefresh(subscription: 7, url: Self.feed, last: .init(etag: "\"v1\""))
        #expect(refresh.answered(.init(status: 304, permanentTarget: "http://new.example/feed.xml")) == .end(.unchanged))
        let record = SubscriptionUpdate.record(of: .init(refresh: refresh, ending: .unchanged, cacheEntry: nil))
        #expect(record.result == .moved)
        #expect(record.address == "http://new.example/feed.xml")
    }

    @Test func anUpdatedFeedRecordsItsEpisodesTitleDigestAndValidators() {
        let refresh = readWhole(["g3", "g2"])
        let record = SubscriptionUpdate.record(of: .init(refresh: refresh, ending: .updated, cacheEntry: Self.cacheEntry))
        #expect(record.result == .updated)
        #expect(record.title == "Show")
        #expect(record.htmlURL == "http://h/show")
        #expect(record.digest == "d2")
        #expect(record.cacheEntry == Self.cacheEntry)
        #expect(record.episodes?.map(\.identity) == ["g3", "g2"])
    }

    @Test func anUpdatedFeedThatMovedIsRecordedAsMoved() {
        let refresh = readWhole(["g1"], permanentTarget: "http://new.example/feed.xml")
        let record = SubscriptionUpdate.record(of: .init(refresh: refresh, ending: .updated, cacheEntry: Self.cacheEntry))
        #expect(record.result == .moved)
        #expect(record.address == "http://new.example/feed.xml")
        #expect(record.episodes?.map(\.identity) == ["g1"])
    }

    @Test func aFeedReadInPartKeepsItsEpisodesButNotThisReadsValidators() {
        var refresh = FeedRefresh(subscription: 7, url: Self.feed, last: .init(digest: "d1", etag: "\"v1\""))
        _ = refresh.answered(.init(status: 200, digest: "d2"))
        #expect(refresh.parsed(.success(Self.page(["g4", "g3"], next: "http://h/feed.xml?page=2")))
            == .fetch(url: "http://h/feed.xml?page=2", conditional: false))
        let pageTwo = FeedError(.http(.status(500, url: "http://h/feed.xml?page=2", retryAfter: nil)), source: Self.feed)
        #expect(refresh.failed(pageTwo) == .end(.updated))
        #expect(!refresh.isWhole)
        let record = SubscriptionUpdate.record(of: .init(refresh: refresh, ending: .updated, cacheEntry: Self.cacheEntry))
        #expect(record.result == .updated)
        #expect(record.cacheEntry == nil, "the next update must not be answered 304 for what was not read")
        #expect(record.digest == nil)
        #expect(record.episodes?.map(\.identity) == ["g4", "g3"])
    }

    @Test func aGoneFeedIsRecordedGoneSayingItIsSkippedFromNowOn() {
        let refresh = FeedRefresh(subscription: 7, url: Self.feed)
        let record = SubscriptionUpdate.record(of: .init(refresh: refresh, ending: .gone, cacheEntry: Self.cacheEntry))
        #expect(record.result == .gone)
        #expect(record.error == "the feed answered 410 Gone; it is skipped from now on")
        #expect(record.cacheEntry == nil && record.episodes == nil)
    }

    @Test func aFailedFeedIsRecordedWithItsError() {
        let error = FeedError(.noAnswer(.seconds(30)), source: Self.feed)
        let refresh = FeedRefresh(subscription: 7, url: Self.feed)
        let record = SubscriptionUpdate.record(of: .init(refresh: refresh, ending: .failed(error), cacheEntry: nil))
        #expect(record.result == .failed)
        #expect(record.error == error.description)
        #expect(record.cacheEntry == nil && record.episodes == nil && record.title == nil)
    }
}
