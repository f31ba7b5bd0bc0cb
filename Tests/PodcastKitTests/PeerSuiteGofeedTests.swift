import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// gofeed's test suite (`feeds/gofeed/`): each `X.xml` read by us and compared field by field with
/// gofeed's answer in `X.json`, wherever we output a counterpart.
@Suite(.timeLimit(.minutes(5))) struct PeerSuiteGofeedTests {
    /// Where we deliberately answer differently from gofeed. A difference that is our bug does not
    /// belong here.
    static let allowlist: [PeerDifference] = [
        PeerDifference("feeds/gofeed/parser/atom/*base64*", "feed.title", Reason.base64),
        PeerDifference("feeds/gofeed/parser/atom/*base64*", "feed.description", Reason.base64),
        PeerDifference("feeds/gofeed/parser/atom/*base64*", "item.title", Reason.base64),
        PeerDifference("feeds/gofeed/parser/atom/*base64*", "item.description", Reason.base64),
        PeerDifference("feeds/gofeed/parser/atom/issue_275_extensions_and_source.xml", "item.description", Reason.base64),
        PeerDifference("feeds/gofeed/*_links.xml", "feed.link", "with several <link>s we keep the first; gofeed keeps the last"),
        PeerDifference("feeds/gofeed/*_links.xml", "item.link", "with several <link>s we keep the first; gofeed keeps the last"),
        PeerDifference("feeds/gofeed/parser/atom/atom10_feed_title_xhtml_*_markup.xml", "parse", Reason.brokenWithoutItems),
        PeerDifference("feeds/gofeed/parser/rss/rss_channel_language.xml", "parse", Reason.brokenWithoutItems),
        PeerDifference("feeds/gofeed/parser/atom/entry_id_xml_base.xml", "item.guid",
            "an Atom id is an identifier, not a reference: we keep it as written; gofeed resolves it against xml:base"),
        PeerDifference("feeds/gofeed/parser/rss/rss_channel_item_guid_naked_markup.xml", "item.guid",
            "markup inside <guid> is not RSS: we keep its text, gofeed its inner XML"),
        PeerDifference("feeds/gofeed/translator/atom/feed_author_email_-_*", "feed.author",
            "an Atom author is shown by name; one with only an email address gives no author"),
        PeerDifference("feeds/gofeed/translator/rss/feed_author_-_rss_channel_webMaster_*", "feed.author",
            "webMaster is the site's technical contact, not the show's author"),
        PeerDifference("feeds/gofeed/translator/rss/feed_image_-_rss_channel_description.xml", "feed.image", Reason.noImageMining),
        PeerDifference("feeds/gofeed/translator/rss/feed_item_image_-_rss_channel_item_*.xml", "item.image", Reason.noImageMining),
        PeerDifference("feeds/gofeed/translator/rss/feed_item_enclosure_-_rss_channel_item_enclosure.xml", "item.image",
            "episode artwork comes from itunes:image or Media RSS, not from a second, image/* <enclosure>"),
        PeerDifference("feeds/gofeed/translator/rss/feed_item_fallbacks_-_rss_channel_item_extensions.xml", "items.count", Reason.sameIdentity),
        PeerDifference("feeds/gofeed/translator/rss/feed_item_fallbacks_-_rss_channel_item_extensions.xml", "items.match", Reason.sameIdentity),
    ]

    /// Our known bugs: recorded as known issues, so a fix shows as a stale entry. None at present.
    static let knownBugs: [PeerDifference] = []

    enum Reason {
        static let base64 = "we do not decode base64 or other non-text Atom content (Atom 0.3 mode=\"base64\", media types); podcasts never use it"
        static let brokenWithoutItems = "broken XML before any item: we refuse the document (nothing to list); gofeed keeps what it read"
        static let noImageMining = "we do not take artwork from an <img> inside show notes"
        static let sameIdentity = "two items with no guid, enclosure, title or date have the same identity; we list them once"
    }

    static let unifiedFixtures = ["translator/rss", "translator/atom", "extensions/itunes", "extensions/media", "extensions/dublincore"]
        .flatMap { PeerFixtures.files(in: "feeds/gofeed/" + $0, suffixes: [".xml"]) }
    static let rssFixtures = PeerFixtures.files(in: "feeds/gofeed/parser/rss", suffixes: [".xml"])
    static let atomFixtures = PeerFixtures.files(in: "feeds/gofeed/parser/atom", suffixes: [".xml"])
    static let universalFixtures = PeerFixtures.files(in: "feeds/gofeed/parser/universal", suffixes: [".xml", ".json"])

    /// A count guard: a missing or moved fixture folder fails here instead of running no case.
    @Test func everyFixtureIsFound() {
        #expect(Self.unifiedFixtures.count == 100)
        #expect(Self.rssFixtures.count == 163)
        #expect(Self.atomFixtures.count == 270)
        #expect(Self.universalFixtures.count == 12)
    }

    @Test(arguments: unifiedFixtures)
    func unifiedModelMatchesGofeed(fixture: String) throws {
        var comparison = PeerComparison(fixture: fixture)
        defer { comparison.verify(allowlist: Self.allowlist, knownBugs: Self.knownBugs) }
        let json = try PeerJSON(data: Fixtures.data(PeerFixtures.sibling(of: fixture, extension: "json")))
        guard let feed = comparison.parse(try Fixtures.data(fixture))?.feed else { return }
        comparison.text("feed.title", feed.title, json["title"].string)
        comparison.same("feed.link", feed.link, json["link"].string)
        comparison.text("feed.description", feed.description, json["description"].string)
        comparison.same("feed.language", feed.language, json["language"].string)
        comparison.same("feed.image", feed.image, json["image"]["url"].string)
        Self.compareAuthor(feed.author, json["author"]["name"].string ?? json["author"]["email"].string, into: &comparison)
        Self.compareItems(json["items"].elements, feed.episodes, into: &comparison,
            guid: { $0["guid"].string }, link: { $0["link"].string }) { item, episode, comparison in
            comparison.text("item.title", episode.title, item["title"].string)
            comparison.sameOrAbsent("item.guid", episode.guid, item["guid"].string)
            comparison.same("item.link", episode.link, item["link"].string)
            comparison.instant("item.published", episode.published, item["publishedParsed"].string ?? item["updatedParsed"].string)
            comparison.text("item.description", episode.description, item["description"].string ?? item["content"].string)
            Self.compareEnclosure(episode.enclosure, item["enclosures"][0], into: &comparison)
            comparison.same("item.image", episode.image, item["itunesExt"]["image"].string ?? item["image"]["url"].string)
            Self.compareITunes(episode, item["itunesExt"], into: &comparison)
        }
    }

    @Test(arguments: rssFixtures)
    func rssParserMatchesGofeed(fixture: String) throws {
        var comparison = PeerComparison(fixture: fixture)
        defer { comparison.verify(allowlist: Self.allowlist, knownBugs: Self.knownBugs) }
        let json = try PeerJSON(data: Fixtures.data(PeerFixtures.sibling(of: fixture, extension: "json")))
        guard let feed = comparison.parse(try Fixtures.data(fixture))?.feed else { return }
        comparison.text("feed.title", feed.title, json["title"].string)
        comparison.same("feed.link", feed.link, json["link"].string)
        comparison.text("feed.description", feed.description, json["description"].string)
        comparison.same("feed.language", feed.language, json["language"].string)
        comparison.same("feed.image", feed.image, json["itunesExt"]["image"].string ?? json["image"]["url"].string)
        Self.compareAuthor(feed.author, json["itunesExt"]["author"].string ?? json["managingEditor"].string, into: &comparison)
        Self.compareItems(json["items"].elements, feed.episodes, into: &comparison,
            guid: { $0["guid"]["value"].string }, link: { $0["link"].string }) { item, episode, comparison in
            comparison.text("item.title", episode.title, item["title"].string)
            comparison.sameOrAbsent("item.guid", episode.guid, item["guid"]["value"].string)
            comparison.same("item.link", episode.link, item["link"].string)
            comparison.instant("item.published", episode.published, item["pubDateParsed"].string)
            comparison.text("item.description", episode.description, item["description"].string ?? item["content"].string)
            Self.compareEnclosure(episode.enclosure, item["enclosure"], into: &comparison)
            Self.compareITunes(episode, item["itunesExt"], into: &comparison)
        }
    }

    @Test(arguments: atomFixtures)
    func atomParserMatchesGofeed(fixture: String) throws {
        var comparison = PeerComparison(fixture: fixture)
        defer { comparison.verify(allowlist: Self.allowlist, knownBugs: Self.knownBugs) }
        let json = try PeerJSON(data: Fixtures.data(PeerFixtures.sibling(of: fixture, extension: "json")))
        guard let feed = comparison.parse(try Fixtures.data(fixture))?.feed else { return }
        comparison.text("feed.title", feed.title, json["title"].string)
        comparison.same("feed.link", feed.link, Self.alternateLink(json["links"]))
        comparison.text("feed.description", feed.description, json["subtitle"].string)
        comparison.same("feed.language", feed.language, json["language"].string)
        comparison.same("feed.image", feed.image, json["logo"].string ?? json["icon"].string)
        Self.compareAuthor(feed.author, json["authors"][0]["name"].string, into: &comparison)
        Self.compareItems(json["entries"].elements, feed.episodes, into: &comparison,
            guid: { $0["id"].string }, link: { Self.alternateLink($0["links"]) }) { entry, episode, comparison in
            comparison.text("item.title", episode.title, entry["title"].string)
            comparison.sameOrAbsent("item.guid", episode.guid, entry["id"].string)
            comparison.same("item.link", episode.link, Self.alternateLink(entry["links"]))
            comparison.instant("item.published", episode.published, entry["publishedParsed"].string ?? entry["updatedParsed"].string)
            comparison.text("item.description", episode.description, entry["summary"].string ?? entry["content"]["value"].string)
            let enclosure = entry["links"].elements.first { $0["rel"].string == "enclosure" && $0["href"].string != nil }
            Self.compareEnclosure(episode.enclosure, enclosure.map { link in
                .object(["url": link["href"] ?? .null, "type": link["type"] ?? .null, "length": link["length"] ?? .null])
            }, into: &comparison)
        }
    }

    /// `parser/universal`: the file name says what gofeed detects; RSS and Atom must parse, the
    /// rest must be refused with a `FeedError`.
    @Test(arguments: universalFixtures)
    func detectionMatchesGofeed(fixture: String) throws {
        let name = (fixture as NSString).lastPathComponent
        let data = try Fixtures.data(fixture)
        let isFeed = ["rss_", "rdf_", "atom03_", "atom10_"].contains { name.hasPrefix($0) } && name.hasSuffix(".xml")
        if isFeed {
            let result = try parseFeed(data, url: PeerFixtures.feedURL)
            #expect(result.feed.title == "Feed Title", "\(fixture)")
            #expect(result.warnings.isEmpty, "\(fixture): \(result.warnings)")
        } else {
            #expect(throws: FeedError.self, "\(fixture)") { try parseFeed(data, url: PeerFixtures.feedURL) }
        }
    }

    // MARK: Comparing

    /// The first `rel="alternate"` (or rel-less) link of an Atom `links` array.
    static func alternateLink(_ links: PeerJSON?) -> String? {
        links?.elements.first { ($0["rel"].string ?? "alternate") == "alternate" && $0["href"].string != nil }?["href"].string
    }

    /// We keep the author line as the feed writes it (`Name (email)`), so the peer's name (or
    /// email when there is no name) must appear in it.
    static func compareAuthor(_ ours: String?, _ theirs: String?, into comparison: inout PeerComparison) {
        guard let theirs else { return }
        let line = ours ?? ""
        if !line.contains(PeerText.collapsed(PeerText.plain(theirs))) && !line.contains(PeerText.collapsed(theirs)) {
            comparison.mismatch("feed.author", "expected a line containing \"\(theirs)\", got \(ours.map { "\"\($0)\"" } ?? "nil")")
        }
    }

    static func compareEnclosure(_ ours: Enclosure?, _ theirs: PeerJSON?, into comparison: inout PeerComparison) {
        guard let theirs, let url = theirs["url"].string else {
            // Nor may we invent one.
            comparison.absent("item.enclosure.url", ours?.url)
            return
        }
        comparison.same("item.enclosure.url", ours?.url, url)
        // We keep MIME types lowercased.
        comparison.same("item.enclosure.type", ours?.type, theirs["type"].string?.lowercased())
        if let length = theirs["length"].string { comparison.same("item.enclosure.length", ours?.length.map(String.init), PeerValue.length(length) ?? "nil") }
    }

    static func compareITunes(_ episode: Episode, _ itunes: PeerJSON?, into comparison: inout PeerComparison) {
        guard let itunes else { return }
        if let duration = itunes["duration"].string, let seconds = PeerValue.seconds(duration) {
            comparison.same("item.duration", episode.duration.map(String.init), String(seconds))
        }
        comparison.same("item.episode", episode.episodeNumber.map(String.init), itunes["episode"].string)
        comparison.same("item.season", episode.season.map(String.init), itunes["season"].string)
        comparison.same("item.episodeType", episode.episodeType, itunes["episodeType"].string?.lowercased())
        comparison.same("item.image", episode.image, itunes["image"].string)
    }

    /// Pairs the peer's items with our episodes, checks the counts, and compares each pair.
    static func compareItems(_ theirs: [PeerJSON], _ ours: [Episode], into comparison: inout PeerComparison,
        guid: (PeerJSON) -> String?, link: (PeerJSON) -> String?,
        each: (PeerJSON, Episode, inout PeerComparison) -> Void) {
        comparison.same("items.count", String(ours.count), String(theirs.count))
        let pairs = PeerItems.match(theirs, ours, guid: guid, link: link, title: { $0["title"].string })
        for (index, (item, episode)) in zip(theirs, pairs).enumerated() {
            guard let episode else {
                comparison.mismatch("items.match", "item \(index) has no counterpart among ours")
                continue
            }
            each(item, episode, &comparison)
        }
    }
}
