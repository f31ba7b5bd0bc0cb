import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// The Podcasting 2.0 example feed (`feeds/podcast-namespace/`) and the Anytime player's small
/// Podcasting 2.0 feeds (`feeds/podcast_search-dart/`), with the values the files spell out.
@Suite(.timeLimit(.minutes(5))) struct PeerSuitePodcastNamespaceTests {
    static let dartFixtures = PeerFixtures.files(in: "feeds/podcast_search-dart", suffixes: [".rss", ".xml"])

    /// A count guard: a missing or moved fixture folder fails here instead of running no case.
    @Test func everyFixtureIsFound() {
        #expect(Self.dartFixtures.count == 6)
    }

    @Test func exampleFeedShowLevelTags() throws {
        let result = try parseFeed(Fixtures.data("feeds/podcast-namespace/example.xml"), url: PeerFixtures.feedURL)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let feed = result.feed
        #expect(feed.title == "Podcasting 2.0 Namespace Example")
        #expect(feed.link == "https://example.com/podcast")
        #expect(feed.language == "en-US")
        #expect(feed.image == "https://example.com/images/pci_avatar-massive.jpg")
        #expect(feed.author == "john@example.com (John Doe)")
        #expect(feed.description == "This is a fake show that exists only as an example of the \"podcast\" namespace tag usage.")
        #expect(feed.isLocked)
        #expect(feed.funding == [Feed.Link(url: "https://example.com/donate", title: "Support the show!")])
    }

    /// `podcast:liveItem` is not an episode: its title, guid and enclosure stay out of the list.
    @Test func exampleFeedListsTheThreeItemsNotTheLiveItem() throws {
        let feed = try parseFeed(Fixtures.data("feeds/podcast-namespace/example.xml"), url: PeerFixtures.feedURL).feed
        #expect(feed.episodes.map(\.title) == ["Episode 3 - The Future", "Episode 2 - The Present", "Episode 1 - The Past"])
        #expect(feed.episodes.map(\.guid) == ["https://example.com/ep0003", "https://example.com/ep0002", "https://example.com/ep0001"])
    }

    @Test func exampleFeedEpisodeThree() throws {
        let feed = try parseFeed(Fixtures.data("feeds/podcast-namespace/example.xml"), url: PeerFixtures.feedURL).feed
        let episode = try #require(feed.episodes.first)
        #expect(episode.link == "https://example.com/podcast/ep0003")
        #expect(episode.published == Date(timeIntervalSince1970: 1_602_217_838))  // Fri, 09 Oct 2020 04:30:38 GMT
        #expect(episode.description == "A look into the future of podcasting and how we get to Podcasting 2.0!")
        #expect(episode.image == "https://example.com/ep0003/artMd.jpg")
        #expect(episode.isExplicit == false)
        #expect(episode.season == 1)
        #expect(episode.episodeNumber == 3)
        #expect(episode.chaptersURL == "https://example.com/ep3_chapters.json")
        #expect(episode.transcripts == [
            Transcript(url: "https://example.com/ep3/transcript.txt", type: "text/plain"),
            Transcript(url: "https://example.com/episode1/transcript.vtt", type: "text/vtt"),
        ])
        #expect(episode.enclosure == Enclosure(url: "https://example.com/file-03.mp3", type: "audio/mpeg", length: 43_200_000))
        #expect(episode.alternateEnclosures == [
            AlternateEnclosure(type: "audio/mpeg", length: 43_200_000,
                sources: ["https://example.com/file-03.mp3", "ipfs://someRandomMpegFile03"], integrity: nil),
            AlternateEnclosure(type: "audio/opus", length: 32_400_000,
                sources: ["https://example.com/file-high-03.opus", "ipfs://someRandomHighBitrateOpusFile03"], integrity: nil),
            AlternateEnclosure(type: "audio/aac", length: 54_000_000,
                sources: ["https://example.com/file-proprietary-03.aac", "ipfs://someRandomProprietaryAACFile03"], integrity: nil),
            AlternateEnclosure(type: "audio/opus", length: 5_400_000,
                sources: ["https://example.com/file-low-03.opus", "ipfs://someRandomLowBitrateOpusFile03"], integrity: nil),
            AlternateEnclosure(type: "video/mp4", length: 7_924_786,
                sources: ["https://example.com/file-720.mp4", "ipfs://QmX33FYehk6ckGQ6g1D9D3FqZPix5JpKstKQKbaS8quUFb"],
                integrity: Integrity(type: "sri", value: "sha384-ExVqijgYHm15PqQqdXfW95x+Rs6C+d6E/ICxyQOeFevnxNLR/wtJNrNYTjIysUBo")),
        ])
    }

    @Test func exampleFeedEpisodesTwoAndOne() throws {
        let feed = try parseFeed(Fixtures.data("feeds/podcast-namespace/example.xml"), url: PeerFixtures.feedURL).feed
        try #require(feed.episodes.count == 3)
        let two = feed.episodes[1]
        #expect(two.season == 1)
        #expect(two.episodeNumber == 2)
        #expect(two.chaptersURL == "https://example.com/ep2_chapters.json")
        #expect(two.transcripts == [Transcript(url: "https://example.com/ep2/transcript.txt", type: "text/plain")])
        #expect(two.enclosure == Enclosure(url: "https://example.com/file-02.mp3", type: "audio/mpeg", length: 43_113_000))
        #expect(two.alternateEnclosures.count == 4)
        #expect(two.alternateEnclosures.allSatisfy { $0.sources.count == 2 && $0.integrity == nil })
        let one = feed.episodes[2]
        #expect(one.episodeNumber == 1)
        #expect(one.chaptersURL == "https://example.com/ep1_chapters.json")
        #expect(one.transcripts == [Transcript(url: "https://example.com/ep1/transcript.txt", type: "text/plain")])
        #expect(one.enclosure == Enclosure(url: "https://example.com/file-01.mp3", type: "audio/mpeg", length: 43_111_403))
        #expect(one.alternateEnclosures.map(\.length) == [43_203_200, 32_406_000, 5_400_300, 5_042_000])
    }

    /// The schema test wrapper holds the tags without a feed around them: it is not a feed.
    @Test func schemaWrapperIsNotAFeed() throws {
        let data = try Fixtures.data("feeds/podcast-namespace/docs/schema/podcast-example.xml")
        let error = try #require(throws: FeedError.self) { try parseFeed(data, url: PeerFixtures.feedURL) }
        #expect(error.kind == .notAFeed(root: "test-wrapper"))
    }

    /// Every file of the Anytime player's set is a two-episode show (with `podcast:` used without
    /// declaring it) whose first episode is fully described.
    @Test(arguments: dartFixtures)
    func anytimeFeedReadsBothEpisodes(fixture: String) throws {
        let result = try parseFeed(Fixtures.data(fixture), url: PeerFixtures.feedURL)
        let feed = result.feed
        #expect(feed.title.hasPrefix("Podcast "))
        #expect(feed.link == "https://nowhere.com/podcastsearchtest1")
        #expect(feed.image == "https://nowhere.com/podcastsearchtest1/image1.png")
        #expect(feed.author == "Podcast Search Author")
        #expect(feed.language == "en")
        // Relative to the document's xml:base, https://audioboom.com/.
        #expect(feed.newFeedURL == "https://audioboom.com/podcast1.rss")
        #expect(feed.episodes.map(\.title) == ["Episode 001", "Episode 002"])
        let first = try #require(feed.episodes.first)
        // `<guid isPermaLink="true"></guid>`: no guid, so the enclosure identifies the episode.
        #expect(first.guid == nil)
        #expect(first.identity == "enclosure:https://nowhere.com/podcastsearchtest1/podcast1/episode001.mp3")
        #expect(first.link == "https://nowhere.com/podcastsearchtest1/podcast1")
        #expect(first.published == Date(timeIntervalSince1970: 1_624_557_600))  // Thu, 24 Jun 2021 18:00:00 +0000
        #expect(first.duration == 1200)
        #expect(first.isExplicit == true)
        #expect(first.episodeType == "full")
        #expect(first.description == "Test of episode 001")
        let length: Int64? = fixture.hasSuffix("/podcast1.rss") ? 1_024_000 : nil  // the others say length="0"
        #expect(first.enclosure == Enclosure(url: "https://nowhere.com/podcastsearchtest1/podcast1/episode001.mp3", type: "audio/mpeg", length: length))
        #expect(feed.episodes.last?.published == nil)
        #expect(feed.episodes.last?.isExplicit == false)
    }

    @Test func anytimeAlternateEnclosuresWithAndWithoutSourcesAndIntegrity() throws {
        let feed = try parseFeed(Fixtures.data("feeds/podcast_search-dart/podcast-alternate-enclosure.rss"), url: PeerFixtures.feedURL).feed
        let episode = try #require(feed.episodes.last)
        #expect(episode.title == "Episode 002")
        #expect(episode.alternateEnclosures == [
            AlternateEnclosure(type: "audio/mpeg", length: 43_200_000, sources: [], integrity: nil),
            AlternateEnclosure(type: "audio/opus", length: 32_400_000,
                sources: ["https://example.com/file-high.opus", "ipfs://someRandomHighBitrateOpusFile"], integrity: nil),
            AlternateEnclosure(type: "audio/opus", length: 32_400_000,
                sources: ["https://example.com/file-high.opus", "ipfs://someRandomHighBitrateOpusFile"],
                integrity: Integrity(type: "sri", value: "sha384-ExVqijgYHm15PqQqdXfW95x+Rs6C+d6E/ICxyQOeFevnxNLR/wtJNrNYTjIysUBo")),
        ])
        #expect(feed.episodes.first?.alternateEnclosures == [])
    }
}
