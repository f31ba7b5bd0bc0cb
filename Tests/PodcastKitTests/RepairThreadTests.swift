import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// The repairs of a long document run on a thread of their own (`RepairThread`); what the parser
/// makes of a document must not depend on it, nor on where the pieces were cut.
@Suite(.timeLimit(.minutes(5))) struct RepairThreadTests {
    /// What parsing `bytes` in pieces of `pieceSize` gives: the feed and its warnings, or the error.
    private func outcome(_ bytes: Data, pieceSize: Int, threaded: Bool) -> String {
        let parser = FeedParser(
            url: "https://example.com/feed.xml", source: nil, httpCharset: nil,
            repairThreadThreshold: threaded ? 0 : Int.max)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + pieceSize, bytes.count)
            bytes[offset..<end].withUnsafeBytes { parser.parse($0) }
            offset = end
        }
        do {
            let result = try parser.finish()
            return "\(result.feed)\n\(result.warnings)"
        } catch {
            return "\(error)"
        }
    }

    @Test func everyFixtureReadsTheSameWithTheThread() throws {
        let files = try #require(FileManager.default.enumerator(at: Fixtures.directory, includingPropertiesForKeys: nil))
        var compared = 0
        for case let file as URL in files where ["xml", "rss", "atom", "rdf"].contains(file.pathExtension) {
            let bytes = try Data(contentsOf: file)
            for pieceSize in [7, 64 * 1024] {
                #expect(
                    outcome(bytes, pieceSize: pieceSize, threaded: true) == outcome(bytes, pieceSize: pieceSize, threaded: false),
                    "\(file.path) in pieces of \(pieceSize)")
            }
            compared += 1
        }
        #expect(compared > 1000)
    }

    /// A long document whose pieces and blocks cut UTF-8 sequences, references, CDATA sections
    /// and comments, with invalid bytes and bare ampersands to repair.
    @Test func aLongDocumentReadsTheSameWithTheThread() {
        var document = Data(#"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Show</title>"#.utf8)
        for number in 0..<3000 {
            document += Data("<item><title>\(number): Größe &amp; Wähler 経済、文化 Fish & Chips &eacute;t&eacute;</title>".utf8)
            document += Data("<guid>id-\(number)</guid><description>&lt;p&gt;Bäckerei &#171;x&#187; &mdash; ".utf8)
            document += Data([0xE9, 0x20, 0xFF, 0x20, 0xC3])  // Latin-1 é, a stray byte, a cut sequence
            document += Data(" end&lt;/p&gt;</description><!-- a -- comment & more -->".utf8)
            document += Data("<content:encoded><![CDATA[<p>天気予報 & ]] ]]> not the end</p>]]></content:encoded>".utf8)
            document += Data("<enclosure url=\"https://cdn.example.com/\(number).mp3?a=1&b=2\" length=\"\(number)\" type=\"audio/mpeg\"/></item>\n".utf8)
        }
        document += Data("</channel></rss>".utf8)
        for pieceSize in [7, 4093, 65_536, 1 << 30] {
            #expect(outcome(document, pieceSize: pieceSize, threaded: true) == outcome(document, pieceSize: pieceSize, threaded: false))
        }
    }

    /// A parser dropped before the document's end stops its thread (no hang, no leak): dropping
    /// it returns, which its thread must have ended for (the suite's time limit catches a hang),
    /// and leaves nothing of the parser behind, as a thread still holding on to it would.
    @Test func anAbandonedParserStopsItsThread() {
        weak var abandoned: FeedParser?
        do {
            let parser = FeedParser(url: "https://example.com/feed.xml", source: nil, httpCharset: nil, repairThreadThreshold: 0)
            abandoned = parser
            let piece = Data(String(repeating: "<rss><channel><item><title>x</title></item>", count: 20_000).utf8)
            piece.withUnsafeBytes { parser.parse($0) }
            piece.withUnsafeBytes { parser.parse($0) }
            // Mid-document, blocks on their way: the thread has work when the parser is dropped.
            #expect(parser.wantsMoreBytes)
        }
        #expect(abandoned == nil, "the abandoned parser is still alive")
    }
}
