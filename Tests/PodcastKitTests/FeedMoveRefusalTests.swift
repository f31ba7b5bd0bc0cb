import Foundation
@testable import PodcastHTTP
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// A feed's move onto an address another subscription has (issue 27, finding 5): `FeedRefresh`
/// refuses it before anything of the document there is used, and the store, as a second guard,
/// records nothing of a document read there.
@Suite(.timeLimit(.minutes(5))) struct FeedMoveRefusalTests {
    private static let bravo = FeedRefresh.Owner(subscription: 2, title: "Bravo")
    /// Alpha (1) at http://a/feed.xml, Bravo (2) at http://b/feed.xml and, earlier, http://b/old.xml.
    private static let owners = [
        FeedAddress.normalized("http://a/feed.xml"): FeedRefresh.Owner(subscription: 1, title: "Alpha"),
        FeedAddress.normalized("http://b/feed.xml"): bravo,
        FeedAddress.normalized("http://b/old.xml"): bravo,
    ]

    private static func page(_ guids: [String], newFeedURL: String? = nil, next: String? = nil, title: String = "Alpha") -> FeedParser.Result {
        var feed = Feed(url: "http://a/feed.xml")
        feed.title = title
        feed.newFeedURL = newFeedURL
        feed.nextPageURL = next
        feed.episodes = guids.map { guid in
            var episode = Episode(title: guid)
            episode.guid = guid
            return episode
        }
        return FeedParser.Result(feed: feed, warnings: [])
    }

    private static func alpha() -> FeedRefresh {
        FeedRefresh(subscription: 1, url: "http://a/feed.xml", last: .init(), owners: owners)
    }

    @Test func aNewFeedURLOntoAnotherSubscriptionIsNotFetchedAndTheOwnDocumentIsRead() {
        var refresh = Self.alpha()
        #expect(refresh.answered(.init(status: 200, digest: "d")) == .parse(url: "http://a/feed.xml"))
        #expect(refresh.parsed(.success(Self.page(["a2", "a1"], newFeedURL: "http://b/feed.xml"))) == .end(.updated))
        #expect(refresh.address == "http://a/feed.xml")
        #expect(refresh.moves.isEmpty)
        #expect(refresh.documentURL == "http://a/feed.xml")
        #expect(refresh.result?.feed.episodes.map(\.guid) == ["a2", "a1"])
        #expect(refresh.refused == [.init(
            move: .init(from: "http://a/feed.xml", to: "http://b/feed.xml", cause: .newFeedURL), owner: "Bravo", readWhereItIs: true)])
    }

    @Test func theOtherSubscriptionsAddressesAreComparedWithoutCaseOfHostOrDefaultPortAndWithEarlierOnes() {
        for address in ["HTTP://B/feed.xml", "http://b:80/feed.xml", "http://b/feed.xml#top", "http://b/old.xml"] {
            var refresh = Self.alpha()
            _ = refresh.answered(.init(status: 200, digest: "d"))
            #expect(refresh.parsed(.success(Self.page(["a1"], newFeedURL: address))) == .end(.updated), "\(address)")
            #expect(refresh.refused.count == 1, "\(address)")
        }
        // The path's case names another resource.
        var other = Self.alpha()
        _ = other.answered(.init(status: 200, digest: "d"))
        #expect(other.parsed(.success(Self.page(["a1"], newFeedURL: "http://b/FEED.xml"))) == .fetch(url: "http://b/FEED.xml", conditional: false))
    }

    @Test func aRefusedNewFeedURLStillReadsTheOwnDocumentsLaterPages() {
        var refresh = Self.alpha()
        _ = refresh.answered(.init(status: 200, digest: "d"))
        #expect(refresh.parsed(.success(Self.page(["a3"], newFeedURL: "http://b/feed.xml", next: "http://a/p2")))
            == .fetch(url: "http://a/p2", conditional: false))
        #expect(refresh.answered(.init(status: 200)) == .parse(url: "http://a/p2"))
        #expect(refresh.parsed(.success(Self.page(["a2", "a1"]))) == .end(.updated))
        #expect(refresh.result?.feed.episodes.map(\.guid) == ["a3", "a2", "a1"])
    }

    @Test func aPermanentRedirectOntoAnotherSubscriptionFailsNamingBoth() {
        var refresh = Self.alpha()
        let end = refresh.answered(.init(status: 200, permanentTarget: "http://b/feed.xml", digest: "d"))
        guard case .end(.failed(let error)) = end else {
            Issue.record("not a failure: \(end)")
            return
        }
        let reason = error.description
        #expect(error.cause == "moved onto another subscription")
        #expect(reason.contains("http://a/feed.xml") && reason.contains("http://b/feed.xml") && reason.contains("\"Bravo\""), "\(reason)")
        #expect(refresh.address == "http://a/feed.xml")
        #expect(refresh.moves.isEmpty)
        #expect(refresh.result == nil, "nothing of Bravo's document is parsed")
        #expect(refresh.refused.map(\.readWhereItIs) == [false])
    }

    /// The feed names a free address, which redirects permanently onto another subscription's:
    /// the feed is its own document again, as if it had named nothing.
    @Test func aNewFeedURLThatRedirectsOntoAnotherSubscriptionFallsBackToTheOwnDocument() {
        var refresh = Self.alpha()
        _ = refresh.answered(.init(status: 200, digest: "d-alpha"))
        #expect(refresh.parsed(.success(Self.page(["a1"], newFeedURL: "http://c/feed.xml"))) == .fetch(url: "http://c/feed.xml", conditional: false))
        #expect(refresh.answered(.init(status: 200, permanentTarget: "http://b/feed.xml", digest: "d-bravo")) == .end(.updated))
        #expect(refresh.address == "http://a/feed.xml")
        #expect(refresh.moves.isEmpty)
        #expect(refresh.documentURL == "http://a/feed.xml", "the cache entry recorded is Alpha's")
        #expect(refresh.digest == "d-alpha")
        #expect(refresh.result?.feed.episodes.map(\.guid) == ["a1"])
        #expect(refresh.refused.map(\.move.cause) == [.permanentRedirect])
    }

    @Test func movesToAFreeAddressOrToTheFeedsOwnEarlierAddressAreFollowed() {
        var free = Self.alpha()
        #expect(free.answered(.init(status: 200, permanentTarget: "http://c/feed.xml", digest: "d")) == .parse(url: "http://c/feed.xml"))
        #expect(free.address == "http://c/feed.xml" && free.refused.isEmpty)

        // Bravo's own earlier address is Bravo's to go back to.
        var bravo = FeedRefresh(subscription: 2, url: "http://b/feed.xml", last: .init(), owners: Self.owners)
        _ = bravo.answered(.init(status: 200, digest: "d"))
        #expect(bravo.parsed(.success(Self.page(["b1"], newFeedURL: "http://b/old.xml"))) == .fetch(url: "http://b/old.xml", conditional: false))
        #expect(bravo.refused.isEmpty)
        #expect(bravo.documentURL == "http://b/old.xml")
    }

    /// The second guard: a refresh that arrives at another subscription's address anyway (it was
    /// subscribed meanwhile) records nothing of what it read there.
    @Test func theStoreRecordsNothingOfADocumentReadAtAnotherSubscriptionsAddress() throws {
        let directory = try TemporaryDirectory(prefix: "move-refusal")
        let store = try StateStore(path: directory.path("state.sqlite"))
        let (alpha, _) = try store.subscriptions.subscribe(url: "http://a/feed.xml", title: "Alpha", htmlURL: nil, change: .init(first: 0))
        let alphaItems = [ListingItem(number: 1, identity: "a1", title: "A1", guid: "a1")]
        _ = try store.subscriptions.recordRefresh(.init(id: alpha.id, address: alpha.url, result: .updated, title: "Alpha", episodes: alphaItems))
        _ = try store.subscriptions.subscribe(url: "http://b/feed.xml", title: "Bravo", htmlURL: nil, change: .init())

        let bravoItems = [ListingItem(number: 1, identity: "b2", title: "B2", guid: "b2"), ListingItem(number: 2, identity: "b1", title: "B1", guid: "b1")]
        let cache = FeedCacheEntry(url: "http://b/feed.xml", etag: "\"b\"", lastModified: nil, bodyFile: "b.xml", fetchedAt: Date())
        let triage = try store.subscriptions.recordRefresh(.init(
            id: alpha.id, address: "http://b/feed.xml", result: .moved, title: "Bravo", htmlURL: "https://bravo.example",
            digest: "d-bravo", cacheEntry: cache, episodes: bravoItems))
        #expect(triage.moveRefused?.contains("\"Bravo\"") == true)
        #expect(triage.new == 0)
        let after = try #require(try store.subscriptions.find(url: "http://a/feed.xml"))
        #expect(after.id == alpha.id && after.url == "http://a/feed.xml" && after.title == "Alpha" && after.htmlURL == nil)
        #expect(after.lastResult == .failed)
        #expect(after.lastError?.contains("\"Bravo\"") == true)
        #expect(try store.subscriptions.lastAnswers()[alpha.id] == FeedRefresh.LastAnswer(), "none of Bravo's validators")
        let summary = try #require(try store.subscriptions.summaries().first { $0.subscription.id == alpha.id })
        #expect(summary.episodes == 1 && summary.new == 0)
        #expect(try store.subscriptions.pendingEpisodes(of: after).isEmpty)
        withExtendedLifetime(directory) {}
    }
}
