import Foundation
import PodcastKit
import PodcastTestSupport
import PodcastText
import Testing

/// Parses `bytes` as the network would deliver them: in small pieces.
func parseFeed(_ bytes: Data, url: String = "https://example.com/feed.xml", httpCharset: String? = nil, pieceSize: Int = 4096) throws -> FeedParser.Result {
    let parser = FeedParser(url: url, httpCharset: httpCharset)
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + pieceSize, bytes.count)
        bytes[offset..<end].withUnsafeBytes { parser.parse($0) }
        offset = end
    }
    return try parser.finish()
}

/// Parses an RSS document made of `channel` (channel-level elements) and `items`.
func parseRSS(_ items: [String], channel: String = "<title>Show</title>", namespaces: String = "") throws -> FeedParser.Result {
    let document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\" \(namespaces)><channel>\(channel)"
        + items.map { "<item>\($0)</item>" }.joined() + "</channel></rss>"
    return try parseFeed(Data(document.utf8))
}

/// The kind of `FeedError` parsing `text` throws, or nil when it parses.
func feedErrorKind(_ bytes: Data) -> FeedError.Kind? {
    do {
        _ = try parseFeed(bytes)
        return nil
    } catch let error as FeedError {
        return error.kind
    } catch {
        return nil
    }
}

@Suite(.timeLimit(.minutes(5))) struct FeedParserTests {
    // MARK: Real feeds

    @Test func serialShowReadsEveryEpisodeNewestFirst() throws {
        let result = try parseFeed(try Fixtures.data("own/feeds/serial-show.xml"))
        let feed = result.feed
        #expect(feed.title == "Tidewater Crossings")
        #expect(feed.episodes.count == 9)
        let newest = try #require(feed.episodes.first)
        #expect(newest.title == "S02 E04 Smörgåsbord at the Slipway")
        #expect(newest.guid == "tag:tidewater.example.org,2024:s02e04")
        #expect(newest.published.map(UTCDate.iso8601) == "2024-03-14T05:30:00Z")
        #expect(newest.duration == 1538)
        #expect(newest.season == 2)
        #expect(newest.episodeNumber == 4)
        #expect(newest.episodeType == "full")
        #expect(newest.isExplicit == false)
        #expect(newest.description == "Volunteers from three villages bring lunch, and the Marigold gets her new propeller shaft.")
        #expect(newest.enclosure == Enclosure(url: "https://media.example.org/tidewater/TC-S02E04.m4a", type: "audio/x-m4a", length: 24_611_843))
        #expect(feed.episodes.contains { $0.episodeType == "trailer" })
        let dates = feed.episodes.compactMap(\.published)
        #expect(dates.count == 9)
        #expect(dates == dates.sorted(by: >))
    }

    @Test func deliveryInOneBytePiecesGivesTheSameFeed() throws {
        let bytes = try Fixtures.data("feeds/rss-parser/input/encoding.rss")
        let whole = try parseFeed(bytes, pieceSize: bytes.count)
        let trickled = try parseFeed(bytes, pieceSize: 1)
        #expect(whole.feed == trickled.feed)
        #expect(whole.feed.episodes.count > 0)
    }

    /// A long document whose pieces cut UTF-8 sequences, references, CDATA sections and comments,
    /// with invalid bytes and bare ampersands to repair (`InputRepair`), reads the same whatever
    /// the pieces it arrives in.
    @Test func aLongDocumentToRepairReadsTheSameInAnyPieces() throws {
        var document = Data(#"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Show</title>"#.utf8)
        for number in 0..<3000 {
            document += Data("<item><title>\(number): Größe &amp; Wähler 経済、文化 Fish & Chips &eacute;t&eacute;</title>".utf8)
            document += Data("<guid>id-\(number)</guid><description>&lt;p&gt;Bäckerei &#171;x&#187; &mdash; ".utf8)
            document += Data([0xE9, 0x20, 0xFF, 0x20, 0xC3])  // Latin-1 é, a stray byte, a cut sequence
            document += Data(" end&lt;/p&gt;</description><!-- a comment & more -->".utf8)
            document += Data("<content:encoded><![CDATA[<p>天気予報 & ]] ] not the end</p>]]></content:encoded>".utf8)
            document += Data("<enclosure url=\"https://cdn.example.com/\(number).mp3?a=1&b=2\" length=\"\(number)\" type=\"audio/mpeg\"/></item>\n".utf8)
        }
        document += Data("</channel></rss>".utf8)
        let whole = try parseFeed(document, pieceSize: document.count)
        #expect(whole.feed.episodes.count == 3000)
        #expect(whole.feed.episodes.first?.title == "0: Größe & Wähler 経済、文化 Fish & Chips été")
        #expect(whole.feed.episodes.first?.description == "Bäckerei «x» — é ÿ Ã end")
        #expect(whole.feed.episodes.first?.enclosure?.url == "https://cdn.example.com/0.mp3?a=1&b=2")
        for pieceSize in [7, 4093, 65_536] {
            let pieces = try parseFeed(document, pieceSize: pieceSize)
            #expect(pieces.feed == whole.feed, "in pieces of \(pieceSize)")
            #expect(pieces.warnings == whole.warnings, "in pieces of \(pieceSize)")
        }
    }

    @Test func whitespaceBeforeTheDeclarationIsAccepted() throws {
        let result = try parseFeed(try Fixtures.data("feeds/feedjira/itunes.xml"))
        #expect(result.warnings.isEmpty)
        #expect(!result.feed.episodes.isEmpty)
    }

    // MARK: Encodings

    @Test func declaredLatin1IsDecoded() throws {
        let bytes = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>Caf\u{E9}</title></channel></rss>".unicodeScalars.map { UInt8($0.value) })
        #expect(try parseFeed(bytes).feed.title == "Café")
    }

    @Test func undeclaredLatin1IsRepairedNotFatal() throws {
        var bytes = Array("<rss><channel><title>Na".utf8)
        bytes += [0xEF, 0x76, 0x65, 0x20, 0x93, 0x71, 0x94]  // "Naïve “q”" in Windows-1252
        bytes += Array("</title><item><title>a</title></item></channel></rss>".utf8)
        let result = try parseFeed(Data(bytes))
        #expect(result.feed.title == "Naïve “q”")
        #expect(result.feed.episodes.count == 1)
    }

    @Test func utf8SplitAcrossPiecesSurvives() throws {
        let document = "<rss><channel><title>音楽 – ünïcode</title></channel></rss>"
        for size in 1...5 {
            #expect(try parseFeed(Data(document.utf8), pieceSize: size).feed.title == "音楽 – ünïcode")
        }
    }

    @Test func httpCharsetDecidesWhenTheDocumentDoesNotSay() throws {
        let bytes = Data("<rss><channel><title>Caf\u{E9}</title></channel></rss>".unicodeScalars.map { UInt8($0.value) })
        #expect(try parseFeed(bytes, httpCharset: "iso-8859-1").feed.title == "Café")
    }

    @Test func utf16WithByteOrderMarkIsRead() throws {
        let document = "<?xml version=\"1.0\" encoding=\"utf-16\"?><rss><channel><title>Ω</title></channel></rss>"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in document.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try parseFeed(Data(bytes), httpCharset: "iso-8859-1").feed.title == "Ω")
    }

    // MARK: Sloppy and broken input

    @Test func htmlEntitiesAndUndeclaredPrefixesAreUnderstood() throws {
        let result = try parseRSS(["<title>Rock&nbsp;&amp;&nbsp;Roll &eacute;t&eacute; &hellip;</title><itunes:duration>1:02:03</itunes:duration>"])
        let episode = try #require(result.feed.episodes.first)
        // A title is one line: the no-break spaces fold into ordinary ones.
        #expect(episode.title == "Rock & Roll été …")
        #expect(episode.duration == 3723)
        #expect(result.warnings.isEmpty)
    }

    @Test func feedBrokenMidwayListsWhatParsedAndWarns() throws {
        let document = """
            <rss><channel><title>Show</title>
            <item><title>One</title><guid>1</guid></item>
            <item><title>Two</title><guid>2</guid></item>
            <item><title>Three</title><guid>3</guid>
            """
        let result = try parseFeed(Data(document.utf8))
        #expect(result.feed.episodes.map(\.title) == ["One", "Two"])
        #expect(result.warnings.count == 1)
        #expect(result.warnings[0].contains("broken XML at line"))
    }

    @Test func malformedBeforeAnyEpisodeNamesLineAndColumn() throws {
        let document = "\n\n<rss><channel><title>Show</title>\n<bad attr=></channel></rss>"
        guard case .malformed(let line, _, _) = feedErrorKind(Data(document.utf8)) else {
            Issue.record("expected a malformed-feed error")
            return
        }
        // Counted in the original document, leading blank lines included.
        #expect(line == 4)
    }

    @Test(arguments: [
        ("", FeedError.Kind.empty),
        ("  \n\t ", .empty),
        ("<!DOCTYPE html><html><body>Podcast</body></html>", .html),
        ("<html><head><title>Login</title></head></html>", .html),
        ("{\"version\": \"https://jsonfeed.org/version/1\"}", .json),
        ("[1, 2, 3]", .json),
        ("just some words", .notXML),
        ("<opml version=\"1.0\"><body/></opml>", .notAFeed(root: "opml")),
    ])
    func nonFeedsAreNamed(_ text: String, _ kind: FeedError.Kind) {
        #expect(feedErrorKind(Data(text.utf8)) == kind)
    }

    @Test func binaryIsNamed() {
        #expect(feedErrorKind(Data([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02] + Array(repeating: 0, count: 600))) == .binary)
    }

    @Test func unwrappedHTMLPageWithXMLishStartIsNamed() {
        #expect(feedErrorKind(Data("<?xml version=\"1.0\"?><html><body/></html>".utf8)) == .html)
    }

    // MARK: Fields

    @Test func relativeURLsResolveAgainstTheFeed() throws {
        let result = try parseRSS([
            "<title>a</title><link>/episodes/1</link><enclosure url=\"media/1.mp3\" type=\"audio/mpeg\" length=\"12\"/>"
                + "<itunes:image href=\"../art.jpg\"/><podcast:transcript url=\"1.vtt\" type=\"text/vtt\"/>",
        ], namespaces: "xmlns:podcast=\"https://podcastindex.org/namespace/1.0\"")
        let episode = try #require(result.feed.episodes.first)
        #expect(episode.link == "https://example.com/episodes/1")
        #expect(episode.enclosure?.url == "https://example.com/media/1.mp3")
        #expect(episode.image == "https://example.com/art.jpg")
        #expect(episode.transcripts == [Transcript(url: "https://example.com/1.vtt", type: "text/vtt")])
    }

    @Test func untitledEpisodeTakesItsFileName() throws {
        let result = try parseRSS(["<enclosure url=\"https://cdn.example.com/shows/My%20Episode%2012.mp3?x=1\" type=\"audio/mpeg\"/>"])
        #expect(result.feed.episodes.first?.title == "My Episode 12")
    }

    @Test func itemWithoutGuidIsIdentifiedByItsEnclosure() throws {
        let result = try parseRSS(["<title>a</title><enclosure url=\"https://cdn.example.com/a.mp3\"/>", "<title>b</title>"])
        #expect(result.feed.episodes.map(\.guid) == [nil, nil])
        #expect(result.feed.episodes.map(\.identity) == ["enclosure:https://cdn.example.com/a.mp3", "title:b@undated"])
        #expect(result.feed.episodes.last?.enclosure == nil)
    }

    @Test func repeatedGuidIsListedOnceWithAWarning() throws {
        let result = try parseRSS(["<title>a</title><guid>x</guid>", "<title>a again</title><guid>x</guid>"])
        #expect(result.feed.episodes.map(\.title) == ["a"])
        #expect(result.warnings.count == 1)
    }

    @Test func undatedEpisodesComeAfterDatedOnesInFeedOrder() throws {
        let result = try parseRSS([
            "<title>u1</title>", "<title>old</title><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>",
            "<title>u2</title>", "<title>new</title><pubDate>Mon, 16 Nov 2026 08:00:00 GMT</pubDate>",
        ])
        #expect(result.feed.episodes.map(\.title) == ["new", "old", "u1", "u2"])
    }

    @Test func channelImageTitleIsNotTheShowTitle() throws {
        let result = try parseRSS([], channel: "<image><title>Logo</title><url>logo.png</url></image><title>Real</title>")
        #expect(result.feed.title == "Real")
        #expect(result.feed.image == "https://example.com/logo.png")
    }

    @Test func atomEnclosureLinksAreEpisodes() throws {
        let document = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en"><title>A</title>
            <link rel="alternate" href="https://example.com/"/><link rel="next" href="?page=2"/>
            <entry><id>urn:1</id><title>E</title><updated>2026-11-20T08:00:00Z</updated>
            <link rel="enclosure" href="/e.mp3" type="audio/mpeg" length="99"/><summary>S</summary></entry></feed>
            """
        let feed = try parseFeed(Data(document.utf8)).feed
        #expect(feed.language == "en")
        #expect(feed.link == "https://example.com/")
        #expect(feed.nextPageURL == "https://example.com/feed.xml?page=2")
        let entry = try #require(feed.episodes.first)
        #expect(entry.guid == "urn:1")
        #expect(entry.published.map(UTCDate.iso8601) == "2026-11-20T08:00:00Z")
        #expect(entry.enclosure == Enclosure(url: "https://example.com/e.mp3", type: "audio/mpeg", length: 99))
        #expect(entry.description == "S")
    }

    @Test func rss1ItemsOutsideTheChannelAreRead() throws {
        let document = """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
              xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>R</title></channel>
            <item><title>I</title><link>https://example.com/i</link><dc:date>2004-02-05T10:00:00+01:00</dc:date></item>
            </rdf:RDF>
            """
        let feed = try parseFeed(Data(document.utf8)).feed
        #expect(feed.title == "R")
        #expect(feed.episodes.first?.link == "https://example.com/i")
        #expect(feed.episodes.first?.published.map(UTCDate.iso8601) == "2004-02-05T09:00:00Z")
    }

    @Test func mediaContentStandsInForAMissingEnclosure() throws {
        let result = try parseRSS([
            "<title>m</title><media:group><media:content url=\"https://x.example/v.jpg\" medium=\"image\"/>"
                + "<media:content url=\"https://x.example/a.mp3\" type=\"audio/mpeg\" fileSize=\"5\" duration=\"61\"/></media:group>",
        ], namespaces: "xmlns:media=\"http://search.yahoo.com/mrss/\"")
        let episode = try #require(result.feed.episodes.first)
        #expect(episode.enclosure == Enclosure(url: "https://x.example/a.mp3", type: "audio/mpeg", length: 5))
        #expect(episode.duration == 61)
    }

    @Test func descriptionsBecomePlainText() throws {
        let result = try parseRSS(["<title>t</title><description><![CDATA[<p>Hello <b>there</b></p><ul><li>one</li></ul>]]></description>"])
        #expect(result.feed.episodes.first?.description == "Hello there\n\n• one")
    }

    @Test func xmlBaseAppliesOnlyInsideTheElementThatDeclaresIt() throws {
        let result = try parseRSS([
            #"<title>A</title><link xml:base="https://cdn.example.org/a/">page.html</link>"#
                + #"<enclosure url="a.mp3" type="audio/mpeg" length="1"/>"#,
            #"<title>B</title><link>b.html</link>"#,
        ], channel: #"<title>Show</title><image xml:base="/art/"><url>show.jpg</url></image>"#)
        let byTitle = Dictionary(uniqueKeysWithValues: result.feed.episodes.map { ($0.title, $0) })
        #expect(byTitle["A"]?.link == "https://cdn.example.org/a/page.html")
        #expect(byTitle["A"]?.enclosure?.url == "https://example.com/a.mp3")
        #expect(byTitle["B"]?.link == "https://example.com/b.html")
        #expect(result.feed.image == "https://example.com/art/show.jpg")
    }

    @Test func nestedXMLBasesResolveAgainstEachOther() throws {
        let document = #"""
            <rss version="2.0"><channel xml:base="https://example.org/shows/"><title>Show</title>
            <item xml:base="ep1/"><title>One</title><enclosure url="one.mp3" type="audio/mpeg" length="1"/></item>
            <item><title>Two</title><enclosure url="two.mp3" type="audio/mpeg" length="1"/></item>
            </channel></rss>
            """#
        let result = try parseFeed(Data(document.utf8))
        let byTitle = Dictionary(uniqueKeysWithValues: result.feed.episodes.map { ($0.title, $0) })
        #expect(byTitle["One"]?.enclosure?.url == "https://example.org/shows/ep1/one.mp3")
        #expect(byTitle["Two"]?.enclosure?.url == "https://example.org/shows/two.mp3")
    }

    // MARK: Long feeds

    @Test func aLongFeedKeepsEveryFieldOfEveryEpisodeInOrder() throws {
        // Oldest first in the document, so sorting reverses them.
        let count = 1_000
        let items = (1...count).map { number in
            let base = number % 10 == 0 ? #" xml:base="https://cdn.example.org/\#(number)/""# : ""
            let day = String(format: "%02d", number % 28 + 1)
            let hour = String(format: "%02d", number % 24)
            return #"<item\#(base)><title>Episode \#(number) &amp; more</title><guid>id-\#(number)</guid>"#
                + #"<link>page-\#(number).html</link><pubDate>\#(day) Jan \#(2000 + number / 28) \#(hour):00:00 GMT</pubDate>"#
                + #"<description><![CDATA[<p>Notes <b>\#(number)</b></p>]]></description>"#
                + #"<itunes:duration>\#(number)</itunes:duration>"#
                + #"<enclosure url="audio/\#(number).mp3" type="audio/mpeg" length="\#(number * 100)"/></item>"#
        }
        let document = #"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Long</title>"#
            + items.joined() + "</channel></rss>"
        let result = try parseFeed(Data(document.utf8), pieceSize: 16 * 1024)

        let episodes = result.feed.episodes
        #expect(episodes.count == count)
        #expect(result.warnings.isEmpty)
        for (index, episode) in episodes.enumerated() {
            let number = count - index
            let base = number % 10 == 0 ? "https://cdn.example.org/\(number)/" : "https://example.com/"
            #expect(episode.title == "Episode \(number) & more")
            #expect(episode.guid == "id-\(number)")
            #expect(episode.link == base + "page-\(number).html")
            #expect(episode.description == "Notes \(number)")
            #expect(episode.duration == number)
            #expect(episode.enclosure == Enclosure(url: base + "audio/\(number).mp3", type: "audio/mpeg", length: Int64(number * 100)))
            #expect(episode.published != nil)
        }
        let dates = episodes.compactMap(\.published)
        #expect(dates == dates.sorted(by: >))
    }

    /// Repeated identities are found wherever the two items are: both near the start, both in
    /// the middle, or far apart.
    @Test(arguments: [(3, 10), (500, 700), (3, 900)])
    func aRepeatedGuidInALongFeedIsListedOnce(first: Int, second: Int) throws {
        let items = (1...1_000).map { number in
            let guid = number == second ? "id-\(first)" : "id-\(number)"
            return "<item><title>Episode \(number)</title><guid>\(guid)</guid></item>"
        }
        let document = "<rss version=\"2.0\"><channel><title>Long</title>" + items.joined() + "</channel></rss>"
        let result = try parseFeed(Data(document.utf8), pieceSize: 16 * 1024)
        #expect(result.feed.episodes.count == 999)
        #expect(result.feed.episodes.filter { $0.guid == "id-\(first)" }.map(\.title) == ["Episode \(first)"])
        #expect(result.warnings == ["feed https://example.com/feed.xml lists 1 episodes twice (same identity); each is shown once"])
    }

    @Test func readingStopsAtTheItemLimitWithAWarning() throws {
        let limit = 50_000  // FeedBuilder.maxItems
        let items = (1...(limit + 5)).map { "<item><guid>\($0)</guid></item>" }.joined()
        let document = "<rss version=\"2.0\"><channel><title>Many</title>" + items + "</channel></rss>"
        let result = try parseFeed(Data(document.utf8), pieceSize: 64 * 1024)
        #expect(result.feed.episodes.count == limit)
        #expect(result.feed.episodes.first?.guid == "1")
        #expect(result.feed.episodes.last?.guid == "\(limit)")
        #expect(result.warnings.contains { $0.contains("more than \(limit) items") })
    }

    /// Feeds `parser` a document of two items and then white space inside the channel, in
    /// pieces of 1 MiB (one buffer handed again and again), until it wants no more or
    /// `total` bytes went in; returns how many did.
    private func feedPaddedDocument(to parser: FeedParser, items: String, total: Int) -> Int {
        let head = Array(("<rss version=\"2.0\"><channel><title>Huge</title>" + items).utf8)
        let padding = [UInt8](repeating: UInt8(ascii: " "), count: 1024 * 1024)
        var sent = 0
        head.withUnsafeBytes { parser.parse($0) }
        sent += head.count
        while parser.wantsMoreBytes && sent < total {
            padding.withUnsafeBytes { parser.parse($0) }
            sent += padding.count
        }
        return sent
    }

    @Test func documentPastTheByteLimitListsWhatItsStartHoldsAndSaysItIsTooLarge() throws {
        let parser = FeedParser(url: "https://example.com/huge.xml")
        let items = "<item><guid>1</guid></item><item><guid>2</guid></item>"
        let sent = feedPaddedDocument(to: parser, items: items, total: FeedParser.maxBytes + 4 * 1024 * 1024)
        // Reading stopped right after the limit, not at the end of the stream.
        #expect(sent > FeedParser.maxBytes && sent <= FeedParser.maxBytes + 1024 * 1024)
        let result = try parser.finish()
        #expect(result.feed.episodes.map(\.guid) == ["1", "2"])
        #expect(result.warnings == ["feed https://example.com/huge.xml is larger than 256 MiB; listing the 2 episodes in its first 256 MiB"])
    }

    @Test func documentPastTheByteLimitWithoutEpisodesIsTooLarge() throws {
        let parser = FeedParser(url: "https://example.com/huge.xml")
        _ = feedPaddedDocument(to: parser, items: "", total: FeedParser.maxBytes + 4 * 1024 * 1024)
        #expect(throws: FeedError(.tooLarge(limit: FeedParser.maxBytes), source: "https://example.com/huge.xml")) {
            try parser.finish()
        }
    }
}
