import Foundation
import PodcastKit
import PodcastTestSupport
import Synchronization
import Testing

/// `podcast update` through the built binary on a feed without guids whose enclosure URLs carry a
/// token that changes on every fetch (issue 27, finding 6): every episode is still one episode,
/// downloaded once, however often the feed is fetched.
@Suite(.timeLimit(.minutes(5))) struct EpisodeIdentityChurnTests {
    /// A feed of `show`'s episodes at `path` with no guids, each enclosure URL ending in
    /// `?token=<n>`, n new for every request (as a CDN signing its links per fetch does).
    final class TokenFeed: Sendable {
        private struct Item {
            var title: String
            var published: String
            var url: String
            var length: Int
        }

        let path: String
        private let server: LoopbackServer
        private let items = Mutex<[Item]>([])

        init(_ show: ServedShow, at path: String) {
            self.path = path
            server = show.server
            let title = show.title
            server.setRoute(path, .handler { [weak self] request in
                // Weak: the server keeps its routes, and must not keep the feed that keeps it.
                guard let self else { return .status(404) }
                let entries = items.withLock { $0 }.reversed().map { item in
                    """
                    <item><title>\(item.title)</title><pubDate>\(item.published)</pubDate>
                    <enclosure url="\(item.url)?token=\(request.index)" length="\(item.length)" type="audio/mpeg"/></item>
                    """
                }
                let xml = """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <rss version="2.0"><channel><title>\(title)</title><link>https://example.com/tokens</link>
                    \(entries.joined(separator: "\n"))
                    </channel></rss>
                    """
                return .fixed(body: Data(xml.utf8), headers: [("Content-Type", "application/rss+xml")])
            })
            serve(show)
        }

        /// Serves every episode `show` has published so far.
        func serve(_ show: ServedShow) {
            let items = (1...show.episodes.count).map(show.episode).map { episode in
                Item(title: episode.title, published: ServedShow.httpDate(episode.published), url: server.url(episode.path), length: episode.body.count)
            }
            self.items.withLock { $0 = items }
        }

        var url: String { server.url(path) }
    }

    @Test func aFeedWhoseEnclosureTokensChangeOnEveryFetchDownloadsEachEpisodeOnce() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Token Show", slug: "token", episodes: 3, on: server)
        let feed = TokenFeed(show, at: "/token/signed.xml")
        let podcast = try SubscriptionScenario.home()
        let subscribed = try await podcast.run(["subscribe", feed.url, "--first", "3"])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")

        var news: [Int?] = []
        for round in 1...3 {
            // The third update finds one episode that is really new.
            if round == 3 {
                show.publish()
                feed.serve(show)
            }
            let update = try await podcast.run(["update", "--json"])
            #expect(update.status == 0, "update \(round): \(update.stderr)")
            news.append(SubscriptionScenario.feeds(update.stdout)[show.title]?["new"] as? Int)
        }
        #expect(news == [0, 0, 1], "the baseline's three were new at subscribe; then only episode 4")
        #expect(server.requestCount(path: feed.path) == 4, "subscribe and three updates each fetched the feed")
        #expect(show.mediaRequests.sorted() == show.paths(1, 2, 3, 4).sorted(), "each episode requested once")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1, 2, 3, 4), "each episode on disk once, no (2) copies")
        for number in 1...4 {
            #expect(show.stored(number, in: podcast) == show.episode(number).body, "episode \(number)")
        }
        let listed = try await SubscriptionScenario.subscriptions(podcast)[show.title]
        #expect(listed?["episodes"] as? Int == 4, "\(String(describing: listed))")
        #expect(listed?["new"] as? Int == 0)
        #expect(listed?["downloaded"] as? Int == 4)
    }
}
