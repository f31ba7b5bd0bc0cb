import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// What identifies an episode without a guid across fetches (issue 27, finding 6): the enclosure
/// URL's key without tokens and tracking redirects (`EnclosureIdentity`), and a subscription's
/// triage recognising an episode it has seen under another identity by title and date
/// (`EpisodeTriage.sameEpisodes`), so that a store made by the old rule does not download its
/// back catalogue again.
@Suite(.timeLimit(.minutes(5))) struct EpisodeIdentityTests {
    private static func key(_ url: String) -> String { EnclosureIdentity.key(of: url) }

    // MARK: EnclosureIdentity

    @Test func aURLWithoutVolatilePartsIsItsOwnKey() {
        for url in ["https://cdn.example.com/show/ep1.mp3", "http://h/download.php?id=7", "https://h/a.mp3?id=1&format=mp3", "https://traffic.megaphone.fm/ABC123.mp3"] {
            #expect(Self.key(url) == url, "identities made before the rule stay the same")
        }
    }

    @Test func tokensSignaturesAndCampaignParametersAreDroppedAndTheRestOfTheQueryKept() {
        #expect(Self.key("https://h/a.mp3?token=abc") == "https://h/a.mp3")
        #expect(Self.key("https://h/a.mp3?token=abc&updated=17&utm_source=rss&utm_medium=x") == "https://h/a.mp3")
        #expect(Self.key("http://h/download.php?id=7&token=abc") == "http://h/download.php?id=7")
        #expect(Self.key("http://h/download.php?Expires=1&id=7&Signature=zz&Key-Pair-Id=k") == "http://h/download.php?id=7")
        #expect(Self.key("https://h/a.mp3?X-Amz-Date=1&X-Amz-Signature=s&awCollectionId=c&awEpisodeId=e&ts=5&sig=q") == "https://h/a.mp3")
        // A parameter only named like a volatile one is kept.
        #expect(Self.key("https://h/a.mp3?tokens=1&utm=2&episode=3") == "https://h/a.mp3?tokens=1&utm=2&episode=3")
        // Two fetches of one episode with different tokens: one key.
        #expect(Self.key("https://h/a.mp3?id=1&token=one") == Self.key("https://h/a.mp3?id=1&token=two"))
        #expect(Self.key("https://h/a.mp3?id=1") != Self.key("https://h/a.mp3?id=2"))
    }

    @Test func theFragmentGoesAndSchemeAndHostAreLowerCasedButNotThePath() {
        #expect(Self.key("HTTPS://CDN.Example.COM/Show/Ep1.mp3#t=10") == "https://cdn.example.com/Show/Ep1.mp3")
        #expect(Self.key("https://h:443/a.mp3") == "https://h/a.mp3")
        #expect(Self.key("http://h:8080/a.mp3") == "http://h:8080/a.mp3")
        #expect(Self.key("not a url #1") == "not a url #1")
    }

    @Test func trackingRedirectsInFrontOfTheRealAddressAreTakenOff() {
        let real = "https://cdn.example.com/show/ep1.mp3"
        for url in [
            "https://dts.podtrac.com/redirect.mp3/cdn.example.com/show/ep1.mp3",
            "https://www.podtrac.com/pts/redirect.mp3/cdn.example.com/show/ep1.mp3",
            "https://chtbl.com/track/ABC12/cdn.example.com/show/ep1.mp3",
            "https://chrt.fm/track/ABC12/cdn.example.com/show/ep1.mp3",
            "https://pdst.fm/e/cdn.example.com/show/ep1.mp3",
            "https://arttrk.com/p/XYZ/cdn.example.com/show/ep1.mp3",
            "https://pscrb.fm/rss/p/cdn.example.com/show/ep1.mp3",
            "https://verifi.podscribe.com/rss/p/cdn.example.com/show/ep1.mp3",
            "https://prfx.byspotify.com/e/cdn.example.com/show/ep1.mp3",
            "https://claritaspod.com/measure/cdn.example.com/show/ep1.mp3",
            "https://op3.dev/e/cdn.example.com/show/ep1.mp3",
            "https://op3.dev/e,pg=3f1a/https://cdn.example.com/show/ep1.mp3",
            "https://op3.dev/e/https://cdn.example.com/show/ep1.mp3",
            // Chained, each with its own form.
            "https://pdst.fm/e/chtbl.com/track/ABC12/dts.podtrac.com/redirect.mp3/cdn.example.com/show/ep1.mp3",
            "https://pdst.fm/e/https://chtbl.com/track/ABC12/https://cdn.example.com/show/ep1.mp3?token=9#x",
        ] {
            #expect(Self.key(url) == real, "\(url)")
        }
        // The query after the redirects is the real address's.
        #expect(Self.key("https://pdst.fm/e/h.example/download.php?id=7&token=1") == "https://h.example/download.php?id=7")
        // A host that serves the file is no prefix; a prefix not followed by an address is none.
        #expect(Self.key("https://traffic.megaphone.fm/ABC.mp3?updated=5") == "https://traffic.megaphone.fm/ABC.mp3")
        #expect(Self.key("https://pdst.fm/e/ep1") == "https://pdst.fm/e/ep1")
        #expect(Self.key("https://chtbl.com/track/ABC12") == "https://chtbl.com/track/ABC12")
        #expect(EnclosureIdentity.path(of: "https://pdst.fm/e/cdn.example.com/show/ep1.mp3?token=1") == "/show/ep1.mp3")
    }

    @Test func anEpisodeWithoutAGuidIsIdentifiedByItsEnclosuresKey() {
        var episode = Episode(title: "One")
        episode.enclosure = Enclosure(url: "https://dts.podtrac.com/redirect.mp3/h.example/1.mp3?token=abc", type: nil, length: nil)
        #expect(episode.identity == "enclosure:https://h.example/1.mp3")
        episode.guid = "guid-1"
        #expect(episode.identity == "guid-1", "a guid is the identity, whatever the URL")
    }

    // MARK: EpisodeTriage.sameEpisodes

    private static func day(_ day: Int) -> Date { Date(timeIntervalSince1970: 1_790_000_000 + Double(day) * 86_400) }

    private static func item(
        _ identity: String, _ title: String, day: Int?, guid: Bool = false, url: String? = nil
    ) -> EpisodeTriage.Recognisable {
        EpisodeTriage.Recognisable(
            identity: identity, title: title, published: day.map(Self.day), hasGuid: guid, enclosureURL: url ?? "https://h/\(title).mp3")
    }

    @Test func aNewIdentityWithTheTitleAndDateOfAKnownEpisodeIsThatEpisode() {
        let known = [Self.item("enclosure:https://h/1.mp3?token=a", "One", day: 1), Self.item("enclosure:https://h/2.mp3?token=a", "Two", day: 2)]
        let fetched = [
            Self.item("enclosure:https://h/3.mp3", "Three", day: 3), Self.item("enclosure:https://h/2.mp3", "Two", day: 2),
            Self.item("enclosure:https://h/1.mp3", "One", day: 1),
        ]
        #expect(EpisodeTriage.sameEpisodes(fetched, known: known) == [
            "enclosure:https://h/2.mp3": "enclosure:https://h/2.mp3?token=a", "enclosure:https://h/1.mp3": "enclosure:https://h/1.mp3?token=a",
        ])
    }

    @Test func aTitleOrDateThatDiffersIsAnotherEpisode() {
        let known = [Self.item("k1", "One", day: 1)]
        #expect(EpisodeTriage.sameEpisodes([Self.item("f1", "One", day: 2)], known: known).isEmpty)
        #expect(EpisodeTriage.sameEpisodes([Self.item("f1", "One (rerun)", day: 1)], known: known).isEmpty)
        #expect(EpisodeTriage.sameEpisodes([Self.item("f1", "One", day: nil)], known: known).isEmpty, "dated and undated differ")
    }

    @Test func twoGuidsAreTwoEpisodesButAGuidGainedOrLostIsRecognised() {
        let known = [Self.item("guid-old", "One", day: 1, guid: true)]
        #expect(EpisodeTriage.sameEpisodes([Self.item("guid-new", "One", day: 1, guid: true)], known: known).isEmpty,
            "the publisher's guids tell them apart (the churn guard's case)")
        #expect(EpisodeTriage.sameEpisodes([Self.item("enclosure:https://h/One.mp3", "One", day: 1)], known: known) == ["enclosure:https://h/One.mp3": "guid-old"])
        let unguided = [Self.item("enclosure:https://h/One.mp3", "One", day: 1)]
        #expect(EpisodeTriage.sameEpisodes([Self.item("guid-1", "One", day: 1, guid: true)], known: unguided) == ["guid-1": "enclosure:https://h/One.mp3"])
    }

    @Test func aKnownEpisodeStillInTheFetchOrAlreadyTakenIsNoOtherItemsIdentity() {
        let known = [Self.item("k1", "Same", day: 1)]
        // k1 is in the fetch itself: f1, same title and date, is another item.
        #expect(EpisodeTriage.sameEpisodes([Self.item("k1", "Same", day: 1), Self.item("f1", "Same", day: 1)], known: known).isEmpty)
        // Two new items, one known: only the first takes it.
        #expect(EpisodeTriage.sameEpisodes([Self.item("f1", "Same", day: 1), Self.item("f2", "Same", day: 1)], known: known) == ["f1": "k1"])
        // The same identity twice in the fetch is one item.
        #expect(EpisodeTriage.sameEpisodes([Self.item("f1", "Same", day: 1), Self.item("f1", "Same", day: 1)], known: known) == ["f1": "k1"])
    }

    @Test func undatedItemsNeedTheSameTitleAndEnclosurePath() {
        let known = [Self.item("k1", "Undated", day: nil, url: "https://h/show/u.mp3?token=a")]
        #expect(EpisodeTriage.sameEpisodes([Self.item("f1", "Undated", day: nil, url: "https://h/show/u.mp3?token=b")], known: known) == ["f1": "k1"])
        #expect(EpisodeTriage.sameEpisodes([Self.item("f1", "Undated", day: nil, url: "https://h/show/other.mp3")], known: known).isEmpty)
        #expect(EpisodeTriage.sameEpisodes([Self.item("f1", "Other", day: nil, url: "https://h/show/u.mp3")], known: known).isEmpty)
        let noEnclosure = EpisodeTriage.Recognisable(identity: "f1", title: "Undated", published: nil, hasGuid: false, enclosureURL: nil)
        #expect(EpisodeTriage.sameEpisodes([noEnclosure], known: known).isEmpty)
    }

    // MARK: A store made by the old rule

    /// A subscription whose episodes were recorded (and downloaded) under the identities the old
    /// rule made, `enclosure:` and the whole URL with its token; the feed, fetched again after
    /// the upgrade, gives new identities and new tokens: nothing is new, nothing more is pending,
    /// and each known episode now has the latest enclosure URL under the identity the feed gives it.
    @Test func aStoreMadeWithOldIdentitiesDownloadsNothingAgainAfterTheUpgrade() throws {
        let directory = try TemporaryDirectory(prefix: "identity-upgrade")
        let store = try StateStore(path: directory.path("state.sqlite"))
        let (subscription, _) = try store.subscriptions.subscribe(url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init(first: 3))
        let url = { (number: Int, token: String) in "https://dts.podtrac.com/redirect.mp3/cdn.example/\(number).mp3?token=\(token)" }
        let old = (1...3).reversed().enumerated().map { index, number in
            ListingItem(
                number: index + 1, identity: "enclosure:" + url(number, "old"), title: "Episode \(number)", enclosureURL: url(number, "old"),
                published: Self.day(number))
        }
        #expect(try store.subscriptions.recordRefresh(.init(id: subscription.id, address: subscription.url, result: .updated, episodes: old)).new == 3)
        try store.subscriptions.markEpisodesDone(old.prefix(2).map(\.identity), of: subscription.id)

        var feed = Feed(url: subscription.url)
        feed.episodes = (1...3).reversed().map { number in
            var episode = Episode(title: "Episode \(number)")
            episode.published = Self.day(number)
            episode.enclosure = Enclosure(url: url(number, "fresh"), type: "audio/mpeg", length: nil)
            return episode
        }
        let fresh = Listing(feed: feed, url: subscription.url).items
        #expect(fresh.allSatisfy { !$0.identity.contains("token") }, "the new rule makes other identities: \(fresh.map(\.identity))")
        let triage = try store.subscriptions.recordRefresh(.init(id: subscription.id, address: subscription.url, result: .updated, episodes: fresh))
        #expect(triage.new == 0 && triage.churned == 0)
        let refreshed = try #require(try store.subscriptions.find(url: subscription.url))
        let pending = try store.subscriptions.pendingEpisodes(of: refreshed)
        #expect(pending.map(\.identity) == [fresh[2].identity], "only the one never downloaded, under its new identity")
        #expect(pending.first?.enclosureURL == url(1, "fresh"), "with the URL the feed gives now")
        let summary = try #require(try store.subscriptions.summaries().first)
        #expect(summary.episodes == 3 && summary.new == 1)
        withExtendedLifetime(directory) {}
    }
}
