import Foundation
import PodcastKit
import Testing

/// Which of an item's texts become its show notes: the first, in order of preference, that has
/// any text once its markup is gone.
@Suite(.timeLimit(.minutes(5))) struct ShowNotesTests {
    @Test func descriptionIsPreferredWhereverItStands() throws {
        let result = try parseRSS(["<content:encoded><![CDATA[<p>Long notes</p>]]></content:encoded>"
            + "<description>Short notes</description>"], namespaces: #"xmlns:content="http://purl.org/rss/1.0/modules/content/""#)
        #expect(result.feed.episodes.first?.description == "Short notes")
    }

    @Test func descriptionWithoutTextGivesWayToTheNextCandidate() throws {
        let result = try parseRSS(["<description><![CDATA[<p> </p>]]></description><description>Second</description>"
            + "<itunes:summary>Summary</itunes:summary>"], namespaces: #"xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd""#)
        #expect(result.feed.episodes.first?.description == "Summary")
    }

    @Test func unusedCandidateLongerThanTheCapStillCountsAsCut() throws {
        let long = String(repeating: "x", count: 600 * 1024)
        let result = try parseRSS(["<description>Short</description><content:encoded>\(long)</content:encoded>"],
            namespaces: #"xmlns:content="http://purl.org/rss/1.0/modules/content/""#)
        #expect(result.feed.episodes.first?.description == "Short")
        #expect(result.warnings.contains { $0.contains("1 texts longer than 512 KiB were cut") })
    }
}
