import Foundation
import PodcastKit
import Testing

/// Bare ampersands in sloppy feeds: read literally, with everything around them kept.
@Suite struct AmpersandRepairTests {
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

    @Test(arguments: 1...8)
    func ampersandAtAPieceBoundaryIsKept(pieceSize: Int) throws {
        let document = "<rss><channel><title>R&</title><item><title>&</title></item></channel></rss>"
        let feed = try parseFeed(Data(document.utf8), pieceSize: pieceSize).feed
        #expect(feed.title == "R&")
        #expect(feed.episodes.first?.title == "&")
    }
}
