import Foundation
import PodcastKit
import Testing

/// Bare ampersands in sloppy feeds: read literally, with everything around them kept.
@Suite(.timeLimit(.minutes(5))) struct ReferenceRepairTests {
    @Test func bareAmpersandKeepsTheTextAndReferencesAfterIt() throws {
        let result = try parseRSS(["<title>Fish & Chips &amp; more &lt;3 &eacute;t&eacute; AT&T</title>"
            + "<enclosure url=\"https://cdn.example.com/a.mp3?a=1&b=2&amp;c=3\" type=\"audio/mpeg\"/>"])
        let episode = try #require(result.feed.episodes.first)
        #expect(episode.title == "Fish & Chips & more <3 été AT&T")
        #expect(episode.enclosure?.url == "https://cdn.example.com/a.mp3?a=1&b=2&c=3")
        #expect(result.warnings.isEmpty)
    }

    @Test func cdataAndCommentsAreLeftAlone() throws {
        let result = try parseRSS(["<!-- a & b --><title><![CDATA[Tom &amp; Jerry & co]]></title>"])
        #expect(result.feed.episodes.first?.title == "Tom &amp; Jerry & co")
    }

    @Test(arguments: 1...12)
    func constructsSplitAcrossPiecesAreRepairedTheSame(pieceSize: Int) throws {
        let document = "<rss><channel><title>A & B &amp; C</title><item><title><![CDATA[x & y]]></title>"
            + "<enclosure url=\"https://h/e.mp3?q=1&r=2&#38;s=3\"/></item></channel></rss>"
        let feed = try parseFeed(Data(document.utf8), pieceSize: pieceSize).feed
        #expect(feed.title == "A & B & C")
        #expect(feed.episodes.first?.title == "x & y")
        #expect(feed.episodes.first?.enclosure?.url == "https://h/e.mp3?q=1&r=2&s=3")
    }

    @Test(arguments: 1...12)
    func brokenUTF8BesideReferencesIsRepairedTheSameWhereverPiecesEnd(pieceSize: Int) throws {
        var bytes = Array("<rss><channel><title>\u{201C}Caf".utf8)
        bytes += [0xE9, 0x26, 0x93]  // "é&“" in Windows-1252: a bare ampersand between broken bytes
        bytes += Array("&eacute;</title><item><title><![CDATA[a &amp; ]]]]>&gt;".utf8) + [0x94]
        bytes += Array("</title></item></channel></rss>".utf8)
        let feed = try parseFeed(Data(bytes), pieceSize: pieceSize).feed
        #expect(feed.title == "\u{201C}Café&“é")
        #expect(feed.episodes.first?.title == "a &amp; ]]>”")
    }

    @Test(arguments: 1...8)
    func ampersandAtAPieceBoundaryIsKept(pieceSize: Int) throws {
        let document = "<rss><channel><title>R&</title><item><title>&</title></item></channel></rss>"
        let feed = try parseFeed(Data(document.utf8), pieceSize: pieceSize).feed
        #expect(feed.title == "R&")
        #expect(feed.episodes.first?.title == "&")
    }
}

/// libxml2 stops emitting named references after its first recoverable error, and copies only the
/// first byte of an HTML entity into attribute values; both are repaired before it sees them.
@Suite(.timeLimit(.minutes(5))) struct NamedReferenceTests {
    @Test func referencesAfterARecoverableErrorSurvive() throws {
        // The mismatched tag is a recoverable error; everything after it still decodes.
        let result = try parseRSS([
            "<title>a</title><description>x</wrong></description>",
            "<title>Fish &amp; Chips &lt;3 caf&eacute; &copy;</title>",
        ])
        #expect(result.feed.episodes.contains { $0.title == "Fish & Chips <3 café ©" })
    }

    @Test func htmlEntitiesInAttributesDecodeWhole() throws {
        let result = try parseRSS(["<title>t</title><enclosure url=\"https://h/caf&eacute;.mp3?a=1&amp;b=&lt;2&gt;\"/>"])
        #expect(result.feed.episodes.first?.enclosure?.url == "https://h/café.mp3?a=1&b=<2>")
    }

    @Test func unknownNamedReferenceStaysAsText() throws {
        let result = try parseRSS(["<title>&bogus; and &amp;</title>"])
        #expect(result.feed.episodes.first?.title == "&bogus; and &")
        #expect(result.warnings.isEmpty)
    }
}
