import Foundation
import PodcastKit
import PodcastTestSupport
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

@Suite struct FeedParserTests {
    @Test func appleSampleFeedReadsEveryEpisode() throws {
        let result = try parseFeed(try Fixtures.data("feeds/apple-sample/podcast.xml"))
        #expect(result.warnings.isEmpty)
        let feed = result.feed
        #expect(feed.title == "Hiking Treks")
        #expect(feed.episodes.count > 0)
        for episode in feed.episodes {
            print(episode.title, episode.published as Any, episode.duration as Any, episode.enclosure as Any, episode.episodeType as Any)
        }
    }
}
