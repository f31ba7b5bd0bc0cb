import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// rss-parser's test suite (`feeds/rss-parser/`): each `input/NAME.rss|atom` read by us and compared
/// with rss-parser's answer in `output/NAME.json`.
@Suite(.timeLimit(.minutes(5))) struct PeerSuiteRSSParserTests {
    /// Where we deliberately answer differently from rss-parser. A difference that is our bug does
    /// not belong here.
    static let allowlist: [PeerDifference] = [
        PeerDifference("feeds/rss-parser/input/gulp-atom.atom", "item.link",
            "we resolve relative links against the feed URL; rss-parser keeps them relative"),
        PeerDifference("feeds/rss-parser/input/uolNoticias.rss", "feed.description", Reason.mojibake),
        PeerDifference("feeds/rss-parser/input/uolNoticias.rss", "item.title", Reason.mojibake),
        PeerDifference("feeds/rss-parser/input/uolNoticias.rss", "items.count", Reason.sameIdentity),
        PeerDifference("feeds/rss-parser/input/uolNoticias.rss", "items.match", Reason.sameIdentity),
    ]

    enum Reason {
        static let sameIdentity = "two items with no guid or enclosure share title and date, so one identity; we list it once"
        static let mojibake = "rss-parser's answer read this ISO-8859-1 feed as UTF-8 (U+FFFD in its text); we honour the declaration"
    }

    /// Outputs that depend on rss-parser options: only the title and the item count are compared.
    static let looselyCompared: Set<String> = ["customfields", "atom-customfields", "guardian", "xml2js-options"]

    /// Inputs with an output file.
    static let answeredFixtures = PeerFixtures.files(in: "feeds/rss-parser/input", suffixes: [".rss", ".atom"])
        .filter { FileManager.default.fileExists(atPath: Fixtures.directory.appending(path: outputPath(of: $0)).path) }

    /// A count guard: a missing or moved fixture folder (inputs or outputs) fails here instead of
    /// running no case.
    @Test func everyFixtureIsFound() {
        #expect(Self.answeredFixtures.count == 29)
    }

    @Test(arguments: answeredFixtures)
    func feedMatchesRSSParser(fixture: String) throws {
        let name = Self.name(of: fixture)
        let output = try Fixtures.data(Self.outputPath(of: fixture))
        // encoding.json is stored in ISO-8859-1 like its input, not UTF-8.
        let text = name == "encoding" ? String(decoding: output.map { UInt16($0) }, as: UTF16.self) : String(decoding: output, as: UTF8.self)
        let json = try PeerJSON(data: Data(text.utf8))["feed"]
        var comparison = PeerComparison(fixture: fixture)
        defer { comparison.verify(allowlist: Self.allowlist) }
        guard let feed = comparison.parse(try Fixtures.data(fixture))?.feed else { return }
        comparison.text("feed.title", feed.title, json["title"].string)
        let items = json["items"].elements
        comparison.same("items.count", String(feed.episodes.count), String(items.count))
        if !Self.looselyCompared.contains(name) {
            comparison.same("feed.link", feed.link, json["link"].string)
            comparison.text("feed.description", feed.description, json["description"].string)
            comparison.same("feed.language", feed.language, json["language"].string)
            comparison.same("feed.image", feed.image, json["itunes"]["image"].string ?? json["image"]["url"].string)
            let pairs = PeerItems.match(items, feed.episodes, guid: { $0["guid"].string ?? $0["id"].string },
                link: { $0["link"].string }, title: { $0["title"].string })
            for (index, (item, episode)) in zip(items, pairs).enumerated() {
                guard let episode else {
                    comparison.mismatch("items.match", "item \(index) has no counterpart among ours")
                    continue
                }
                Self.compare(item, episode, into: &comparison)
            }
        }
    }

    /// rss-parser refuses it as "not RSS"; so do we.
    @Test func unrecognizedDocumentIsRefused() throws {
        let data = try Fixtures.data("feeds/rss-parser/input/unrecognized.rss")
        #expect(throws: FeedError.self) { try parseFeed(data, url: PeerFixtures.feedURL) }
    }

    /// Its `<itunes:image>` has no `href` (the URL is in the element's text): it gives no artwork,
    /// and the show's image is the RSS `<image>` (the same picture, as it happens).
    @Test func brokenITunesImageGivesNoImage() throws {
        let result = try parseFeed(Fixtures.data("feeds/rss-parser/input/itunes-missing-image.rss"), url: PeerFixtures.feedURL)
        #expect(result.feed.title == "Taverncast - Happy Hour in Your Head - Since 2005")
        #expect(result.feed.image == "http://www.taverncast.com/itunes-logo.png")
        #expect(result.feed.episodes.allSatisfy { $0.image == nil })
    }

    /// The real 730-item Giant Bomb feed: every item read, and every episode downloadable.
    @Test func giantBombReadsEveryItem() throws {
        let result = try parseFeed(Fixtures.data("feeds/rss-parser/input/giantbomb-podcast.rss"), url: PeerFixtures.feedURL)
        #expect(result.feed.episodes.count == 730)
        #expect(result.feed.episodes.allSatisfy { $0.enclosure != nil })
        #expect(result.warnings.isEmpty, "\(result.warnings)")
    }

    static func compare(_ item: PeerJSON, _ episode: Episode, into comparison: inout PeerComparison) {
        comparison.text("item.title", episode.title, item["title"].string)
        comparison.same("item.link", episode.link, item["link"].string)
        comparison.same("item.guid", episode.guid, item["guid"].string ?? item["id"].string)
        comparison.instant("item.published", episode.published, item["isoDate"].string)
        if let url = item["enclosure"]["url"].string {
            comparison.same("item.enclosure.url", episode.enclosure?.url, url)
            comparison.same("item.enclosure.type", episode.enclosure?.type, item["enclosure"]["type"].string?.lowercased())
            if let length = item["enclosure"]["length"].string {
                comparison.same("item.enclosure.length", episode.enclosure?.length.map(String.init), PeerValue.length(length) ?? "nil")
            }
        }
        let itunes = item["itunes"]
        if let duration = itunes["duration"].string, let seconds = PeerValue.seconds(duration) {
            comparison.same("item.duration", episode.duration.map(String.init), String(seconds))
        }
        comparison.same("item.episode", episode.episodeNumber.map(String.init), itunes["episode"].string)
        comparison.same("item.season", episode.season.map(String.init), itunes["season"].string)
        comparison.same("item.episodeType", episode.episodeType, itunes["episodeType"].string?.lowercased())
        comparison.same("item.image", episode.image, itunes["image"].string)
    }

    static func name(of fixture: String) -> String {
        let file = (fixture as NSString).lastPathComponent
        return (file as NSString).deletingPathExtension
    }

    static func outputPath(of fixture: String) -> String {
        "feeds/rss-parser/output/" + name(of: fixture) + ".json"
    }
}
