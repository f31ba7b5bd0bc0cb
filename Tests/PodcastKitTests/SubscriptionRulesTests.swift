import Foundation
@testable import PodcastKit
import Testing

/// The pure decisions of subscriptions: what a fetch makes new (baseline, churn guard), which
/// files `keep` deletes, and one feed's fetch step by step.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionRulesTests {
    private static func day(_ day: Int) -> Date { Date(timeIntervalSince1970: 1_790_000_000 + Double(day) * 86_400) }

    private static func fetched(_ identities: ClosedRange<Int>, prefix: String = "g", undated: Bool = false) -> [EpisodeTriage.Fetched] {
        identities.reversed().map { EpisodeTriage.Fetched(identity: "\(prefix)\($0)", published: undated ? nil : day($0)) }
    }

    // MARK: EpisodeTriage

    @Test func theBaselineMakesOnlyTheNewestFirstNew() {
        let verdict = EpisodeTriage.verdict(on: Self.fetched(1...5), known: [], newestKnown: nil, baseline: true, first: 2)
        #expect(verdict.new == ["g5", "g4"])
        #expect(verdict.seen == ["g3", "g2", "g1"])
        #expect(!verdict.churned)
        #expect(EpisodeTriage.verdict(on: Self.fetched(1...5), known: [], newestKnown: nil, baseline: true, first: 0).new.isEmpty)
        #expect(EpisodeTriage.verdict(on: Self.fetched(1...2), known: [], newestKnown: nil, baseline: true, first: 9).new == ["g2", "g1"])
    }

    @Test func afterTheBaselineEveryUnseenIdentityIsNewOnce() {
        var episodes = Self.fetched(1...6)
        episodes.append(EpisodeTriage.Fetched(identity: "g6", published: Self.day(6)))
        let verdict = EpisodeTriage.verdict(on: episodes, known: Set((1...4).map { "g\($0)" }), newestKnown: Self.day(4), baseline: false, first: 1)
        #expect(verdict.new == ["g6", "g5"])
        #expect(verdict.seen.isEmpty)
    }

    @Test func mostOfAFeedNewAtOnceAndNoNewerIsChurn() {
        let known = Set((1...10).map { "g\($0)" })
        // The host rewrote every guid; the dates are the same.
        let verdict = EpisodeTriage.verdict(on: Self.fetched(1...10, prefix: "new-"), known: known, newestKnown: Self.day(10), baseline: false, first: 1)
        #expect(verdict.churned)
        #expect(verdict.new.isEmpty)
        #expect(verdict.seen.count == 10)
    }

    @Test func churnNeedsFiveHalfTheFeedAndNothingNewer() {
        let known = Set((1...10).map { "g\($0)" })
        // Four new ones: a busy feed, not churn.
        let four = Self.fetched(1...10) + Self.fetched(1...4, prefix: "x")
        #expect(!EpisodeTriage.verdict(on: four, known: known, newestKnown: Self.day(10), baseline: false, first: 1).churned)
        // Five new of twenty: not more than half.
        let known20 = Set((1...15).map { "g\($0)" })
        let quarter = Self.fetched(1...15) + Self.fetched(1...5, prefix: "x")
        #expect(!EpisodeTriage.verdict(on: quarter, known: known20, newestKnown: Self.day(15), baseline: false, first: 1).churned)
        // Six new, one of them newer than anything seen: real news.
        let newer = Self.fetched(1...5, prefix: "x") + [EpisodeTriage.Fetched(identity: "x11", published: Self.day(11))]
        #expect(EpisodeTriage.verdict(on: newer, known: ["g1", "g2"], newestKnown: Self.day(10), baseline: false, first: 1).new.count == 6)
        // Undated ones cannot show they are newer: still churn.
        let undated = Self.fetched(1...6, prefix: "x", undated: true)
        #expect(EpisodeTriage.verdict(on: undated, known: ["g1", "g2"], newestKnown: Self.day(10), baseline: false, first: 1).churned)
        // Nothing seen had a date: nothing to compare with, so no guard.
        #expect(!EpisodeTriage.verdict(on: undated, known: ["g1"], newestKnown: nil, baseline: false, first: 1).churned)
    }

    // MARK: KeepRule

    @Test func keepDeletesTheOldestBeyondTheNewestN() {
        let files = [3, 1, 4, 2].map { KeepRule.File(identity: "g\($0)", path: "/e/\($0).mp3", published: Self.day($0)) }
        #expect(KeepRule.toDelete(files, keep: 2).map(\.identity) == ["g2", "g1"])
        #expect(KeepRule.toDelete(files, keep: 10).isEmpty)
        #expect(KeepRule.toDelete(files, keep: 0).count == 4)
    }

    @Test func withAnUndatedEpisodeKeepFollowsTheFeedsOrder() {
        // Positions: newest first, as the subscription's fetches showed them.
        let files = [
            KeepRule.File(identity: "old", path: "/e/b.mp3", published: Self.day(9), position: 2),
            KeepRule.File(identity: "just-downloaded", path: "/e/z.mp3", published: nil, position: 0),
            KeepRule.File(identity: "middle", path: "/e/a.mp3", published: Self.day(1), position: 1),
        ]
        #expect(KeepRule.toDelete(files, keep: 1).map(\.identity) == ["middle", "old"])
        // Unknown positions go last, by path.
        let unplaced = [KeepRule.File(identity: "x", path: "/e/x.mp3", published: nil), files[1]]
        #expect(KeepRule.toDelete(unplaced, keep: 1).map(\.identity) == ["x"])
    }

    // MARK: FeedRefresh

    private static func page(_ episodes: [Episode] = [], next: String? = nil, newFeedURL: String? = nil, title: String = "Show") -> FeedParser.Result {
        var feed = Feed(url: "http://h/feed.xml")
        feed.title = title
        feed.episodes = episodes
        feed.nextPageURL = next
        feed.newFeedURL = newFeedURL
        return FeedParser.Result(feed: feed, warnings: [])
    }

    private static func episode(_ guid: String, day: Int) -> Episode {
        var episode = Episode(title: guid)
        episode.guid = guid
        episode.published = Self.day(day)
        return episode
    }

    @Test func notModifiedEndsUnchangedWithoutAParse() {
        var refresh = FeedRefresh(subscription: 1, url: "http://h/feed.xml", last: .init(digest: "d1", etag: "\"e1\""))
        #expect(refresh.begin(refresh: false) == .fetch(url: "http://h/feed.xml", conditional: true))
        #expect(refresh.answered(.init(status: 304)) == .end(.unchanged))
        #expect(refresh.moves.isEmpty)
    }

    @Test func theConditionalGETUsesTheValidatorsOfTheLastRecordedAnswer() {
        #expect(FeedRefresh(subscription: 1, url: "http://h/f", last: .init()).begin(refresh: false) == .fetch(url: "http://h/f", conditional: false))
        let last = FeedRefresh.LastAnswer(digest: "d", etag: "\"e\"", lastModified: "Tue, 10 Nov 2026 08:00:00 GMT")
        #expect(FeedRefresh(subscription: 1, url: "http://h/f", last: last).begin(refresh: false) == .fetch(url: "http://h/f", conditional: true))
        #expect(last.conditions == ["If-None-Match: \"e\"", "If-Modified-Since: Tue, 10 Nov 2026 08:00:00 GMT"])
    }

    @Test func theSameBytesAgainEndUnchangedWithoutAParse() {
        var refresh = FeedRefresh(subscription: 1, url: "http://h/feed.xml", last: .init(digest: "d1", etag: "\"e1\""))
        #expect(refresh.begin(refresh: true) == .fetch(url: "http://h/feed.xml", conditional: false))
        #expect(refresh.answered(.init(status: 200, digest: "d1")) == .end(.unchanged))
        var changed = FeedRefresh(subscription: 1, url: "http://h/feed.xml", last: .init(digest: "d1", etag: "\"e1\""))
        #expect(changed.answered(.init(status: 200, digest: "d2")) == .parse(url: "http://h/feed.xml"))
        #expect(changed.digest == "d2")
    }

    @Test func aPermanentRedirectMovesTheFeed() {
        var refresh = FeedRefresh(subscription: 1, url: "http://h/old.xml", last: .init())
        #expect(refresh.answered(.init(status: 200, permanentTarget: "http://h/new.xml", digest: "d")) == .parse(url: "http://h/new.xml"))
        #expect(refresh.address == "http://h/new.xml")
        #expect(refresh.moves == [.init(from: "http://h/old.xml", to: "http://h/new.xml", cause: .permanentRedirect)])
        #expect(refresh.parsed(.success(Self.page([Self.episode("a", day: 1)]))) == .end(.updated))
        #expect(refresh.result?.feed.episodes.count == 1)
    }

    @Test func aNewFeedURLIsReadFromThereOnce() {
        var refresh = FeedRefresh(subscription: 1, url: "http://h/old.xml", last: .init())
        _ = refresh.answered(.init(status: 200, digest: "d"))
        #expect(refresh.parsed(.success(Self.page(newFeedURL: "https://n/feed.xml"))) == .fetch(url: "https://n/feed.xml", conditional: false))
        #expect(refresh.address == "https://n/feed.xml")
        #expect(refresh.result == nil)
        // The new address says the same again (or points back): it is not followed a second time.
        #expect(refresh.answered(.init(status: 200, digest: "d")) == .parse(url: "https://n/feed.xml"))
        #expect(refresh.parsed(.success(Self.page([Self.episode("a", day: 1)], newFeedURL: "http://h/old.xml"))) == .end(.updated))
        #expect(refresh.moves.map(\.cause) == [.newFeedURL])
    }

    @Test func pagesAreReadToTheEndOncePerAddress() {
        var refresh = FeedRefresh(subscription: 1, url: "http://h/feed.xml", last: .init())
        _ = refresh.answered(.init(status: 200, digest: "d"))
        #expect(refresh.parsed(.success(Self.page([Self.episode("b", day: 2)], next: "http://h/p2"))) == .fetch(url: "http://h/p2", conditional: false))
        #expect(refresh.answered(.init(status: 200)) == .parse(url: "http://h/p2"))
        // Page 2 points back at the first page: a loop ends here.
        #expect(refresh.parsed(.success(Self.page([Self.episode("a", day: 1), Self.episode("b", day: 2)], next: "http://h/feed.xml"))) == .end(.updated))
        #expect(refresh.result?.feed.episodes.map(\.guid) == ["b", "a"])
        #expect(refresh.result?.warnings.count == 1)
    }

    @Test func aBrokenLaterPageKeepsWhatWasRead() {
        var refresh = FeedRefresh(subscription: 1, url: "http://h/feed.xml", last: .init())
        _ = refresh.answered(.init(status: 200, digest: "d"))
        _ = refresh.parsed(.success(Self.page([Self.episode("b", day: 2)], next: "http://h/p2")))
        let failure = FeedError(.http(.status(500, url: "http://h/p2", retryAfter: nil)), source: "http://h/p2")
        #expect(refresh.failed(failure) == .end(.updated))
        #expect(refresh.result?.feed.episodes.count == 1)
        #expect(refresh.result?.warnings.first?.contains("page 2") == true)
    }

    @Test func goneAndFailuresEndTheFeed() {
        var gone = FeedRefresh(subscription: 1, url: "http://h/feed.xml", last: .init())
        #expect(gone.failed(FeedError(.http(.status(410, url: "http://h/feed.xml", retryAfter: nil)), source: "http://h/feed.xml")) == .end(.gone))
        var failed = FeedRefresh(subscription: 1, url: "http://h/feed.xml", last: .init())
        let end = failed.failed(FeedError(.http(.status(500, url: "http://h/feed.xml", retryAfter: nil)), source: "http://h/feed.xml"))
        guard case .end(.failed(let error)) = end else { Issue.record("not a failure: \(end)"); return }
        #expect(error.description.contains("500") && error.cause == "HTTP 500")
        var broken = FeedRefresh(subscription: 1, url: "http://h/feed.xml", last: .init())
        _ = broken.answered(.init(status: 200, digest: "d"))
        #expect(broken.parsed(.failure(FeedError(.html, source: "http://h/feed.xml"))) == .end(.failed(FeedError(.html, source: "http://h/feed.xml"))))
    }

    @Test func aPageAtANewSubscriptionsAddressIsFollowedToTheFeedItNames() {
        var refresh = FeedRefresh(subscription: 1, url: "http://h/show/", last: .init(), followsPage: true)
        #expect(refresh.answered(.init(status: 200, digest: "page")) == .parse(url: "http://h/show/"))
        #expect(refresh.parsed(.failure(FeedError(.html, source: "http://h/show/"))) == .readPage(url: "http://h/show/"))
        let found = FeedResolution(link: "http://h/show/", feeds: ["http://h/feed.xml"], chosen: "http://h/feed.xml", way: .alternate)
        #expect(refresh.pageRead(.success(found)) == .fetch(url: "http://h/feed.xml", conditional: false))
        #expect(refresh.answered(.init(status: 200, digest: "feed")) == .parse(url: "http://h/feed.xml"))
        #expect(refresh.parsed(.success(Self.page([Self.episode("a", day: 1)]))) == .end(.updated))
        #expect(refresh.address == "http://h/feed.xml" && refresh.documentURL == "http://h/feed.xml" && refresh.digest == "feed")
        #expect(refresh.moves == [.init(from: "http://h/show/", to: "http://h/feed.xml", cause: .page(found))])
        // The feed lane stops a page at its first bytes: that failure asks for the page too.
        var stopped = FeedRefresh(subscription: 1, url: "http://h/show/", last: .init(), followsPage: true)
        #expect(stopped.failed(FeedError(.html, source: "http://h/show/")) == .readPage(url: "http://h/show/"))
    }

    @Test func aPageIsFollowedOnlyForANewSubscriptionOnceAndNeverOntoAnothersFeed() {
        let html = FeedError(.html, source: "http://h/show/")
        let found = FeedResolution(link: "http://h/show/", feeds: ["http://h/feed.xml"], chosen: "http://h/feed.xml", way: .alternate)
        // An established subscription that answers with a page fails, as ever.
        var established = FeedRefresh(subscription: 1, url: "http://h/show/", last: .init())
        _ = established.answered(.init(status: 200, digest: "page"))
        #expect(established.parsed(.failure(html)) == .end(.failed(html)))

        // The feed a page names that is a page too fails, and the subscription stays where it was.
        var twice = FeedRefresh(subscription: 1, url: "http://h/show/", last: .init(), followsPage: true)
        _ = twice.answered(.init(status: 200, digest: "page"))
        _ = twice.parsed(.failure(html))
        _ = twice.pageRead(.success(found))
        _ = twice.answered(.init(status: 200, digest: "again"))
        let end = twice.parsed(.failure(FeedError(.html, source: "http://h/feed.xml")))
        guard case .end(.failed(let error)) = end else { Issue.record("not a failure: \(end)"); return }
        #expect(error.source == "http://h/feed.xml (found from http://h/show/)")
        #expect(twice.address == "http://h/show/" && twice.documentURL == "http://h/show/" && twice.moves.isEmpty)

        // A page that names no feed fails with that.
        var bare = FeedRefresh(subscription: 1, url: "http://h/show/", last: .init(), followsPage: true)
        _ = bare.answered(.init(status: 200, digest: "page"))
        _ = bare.parsed(.failure(html))
        let none = FeedError(.noFeedOnPage(readLimit: nil), source: "http://h/show/")
        #expect(bare.pageRead(.failure(none)) == .end(.failed(none)))
        #expect(bare.moves.isEmpty)

        // A page naming another subscription's feed takes nothing of it.
        var taken = FeedRefresh(
            subscription: 1, url: "http://h/show/", last: .init(), owners: ["http://h/feed.xml": .init(subscription: 2, title: "Other")],
            followsPage: true)
        _ = taken.answered(.init(status: 200, digest: "page"))
        _ = taken.parsed(.failure(html))
        guard case .end(.failed(let refused)) = taken.pageRead(.success(found)), case .movedOntoAnother(let line) = refused.kind else {
            Issue.record("not refused")
            return
        }
        #expect(line.contains("http://h/show/ is a web page pointing to http://h/feed.xml, which is the subscription") && line.contains("\"Other\""))
        #expect(taken.moves.isEmpty && taken.address == "http://h/show/")
    }

    /// The feed a page names that redirects permanently onto another subscription's feed is
    /// refused, and the subscription stays at the page, as when that feed cannot be read: it
    /// was moved to the feed it never read, with a note saying so beside the error.
    @Test func aPagesFeedThatRedirectsOntoAnothersFeedLeavesTheSubscriptionAtThePage() {
        let found = FeedResolution(link: "http://h/show/", feeds: ["http://h/feed.xml"], chosen: "http://h/feed.xml", way: .alternate)
        var sneak = FeedRefresh(
            subscription: 1, url: "http://h/show/", last: .init(), owners: ["http://h/other.xml": .init(subscription: 2, title: "Other")],
            followsPage: true)
        _ = sneak.failed(FeedError(.html, source: "http://h/show/"))
        _ = sneak.pageRead(.success(found))
        guard case .end(.failed(let refused)) = sneak.answered(.init(status: 200, permanentTarget: "http://h/other.xml", digest: "other")),
            case .movedOntoAnother(let line) = refused.kind
        else {
            Issue.record("not refused")
            return
        }
        #expect(line.hasPrefix("http://h/feed.xml redirects permanently to http://h/other.xml, which is the subscription \"Other\""))
        #expect(sneak.address == "http://h/show/" && sneak.documentURL == "http://h/show/" && sneak.moves.isEmpty, "\(sneak.moves)")
    }
}
