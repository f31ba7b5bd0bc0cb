import Foundation
import PodcastKit
import Testing

/// Element text handed to libxml2 as CDATA sections (`TextSections`) reads exactly as the text did:
/// the same characters, and the same place for a problem reported after it.
@Suite struct TextSectionsTests {
    @Test(arguments: [1, 3, 7, 64, 4096])
    func escapedHTMLAndNonASCIITextReadTheSameWherePiecesEnd(pieceSize: Int) throws {
        let document = "<rss><channel><title>Caf&#233; &amp; b&#xE9;b&eacute; 世界</title><item>"
            + "<title>Québec</title><description>&lt;p&gt;forêt&amp;nbsp;&amp;ndash; a ]]&gt; b&lt;/p&gt;</description>"
            + "</item></channel></rss>"
        let result = try parseFeed(Data(document.utf8), pieceSize: pieceSize)
        #expect(result.feed.title == "Café & bébé 世界")
        let episode = try #require(result.feed.episodes.first)
        #expect(episode.title == "Québec")
        #expect(episode.description == "forêt – a ]]> b")
        #expect(result.warnings.isEmpty)
    }

    @Test func aProblemAfterRewrittenTextKeepsItsColumn() throws {
        // The column libxml2 reports counts the text as it was handed over before the rewrite.
        let document = "<rss><channel><title>x</title><item><title>&lt;p&gt;Feed Title&lt;/p&gt; a</title>"
            + "<description>d</wrong></description></item></channel></rss>"
        let result = try parseFeed(Data(document.utf8))
        #expect(result.feed.episodes.first?.title == "<p>Feed Title</p> a")
        #expect(result.warnings.first?.contains("line 1:109") == true)
    }

    @Test func textThatReadsDifferentlyInASectionIsLeftAsText() throws {
        // A line end by reference, a carriage return and a tab by reference stay text.
        let document = "<rss><channel><title>x</title><item><title>a&#10;b</title><description>c\r\nd&#9;é</description>"
            + "</item></channel></rss>"
        let episode = try #require(try parseFeed(Data(document.utf8)).feed.episodes.first)
        #expect(episode.title == "a b")
        #expect(episode.description == "c\nd\té")
    }
}
