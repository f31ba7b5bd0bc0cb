import Foundation
@testable import PodcastHTTP
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// The fetcher against a loopback server: conditional GET, moves, pages, errors.
@Suite(.timeLimit(.minutes(5))) struct FeedFetcherTests {
    /// A fetcher with its own state store and cache directory.
    private final class Fixture {
        let directory: TemporaryDirectory
        let store: StateStore
        let fetcher: FeedFetcher

        init() throws {
            directory = try TemporaryDirectory(prefix: "feed-fetcher")
            store = try StateStore(path: directory.path("state.sqlite"))
            fetcher = FeedFetcher(
                settings: HTTPSettings(stallTimeout: 5), cache: store.feedCache,
                cacheDirectory: directory.path("feeds"))
        }
    }

    private static func feed(_ title: String, items: [String], extra: String = "") -> Data {
        Data(("<rss xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\" xmlns:atom=\"http://www.w3.org/2005/Atom\">"
            + "<channel><title>\(title)</title>\(extra)"
            + items.map { "<item><title>\($0)</title><guid>\($0)</guid></item>" }.joined() + "</channel></rss>").utf8)
    }

    /// A route answering 304 to a request that carries `etag`, else the body with that ETag.
    private static func conditional(_ body: Data, etag: String) -> ServerRoute {
        .handler { request in
            request.header("If-None-Match") == etag
                ? .status(304, body: Data()) : .fixed(body: body, headers: [("ETag", etag), ("Content-Type", "application/rss+xml")])
        }
    }

    @Test func aSlowPageReportsHowMuchHasArrived() throws {
        // 24 KiB in 1 KiB pieces, a tenth of a second apart: about 2.4 s in all.
        let body = Self.feed("Slow", items: ["a"], extra: "<description>" + String(repeating: "x", count: 24 * 1024) + "</description>")
        let server = try LoopbackServer(routes: ["/feed": .slow(body: body, chunkSize: 1024, interval: .milliseconds(100))])
        let fixture = try Fixture()
        let reports = Reports()
        var fetcher = fixture.fetcher
        fetcher.progress = { reports.all.append($0) }
        let fetched = try fetcher.fetch(server.url("/feed"))
        #expect(fetched.result.feed.title == "Slow")
        #expect(!reports.all.isEmpty)
        #expect(reports.all.allSatisfy { $0.url == server.url("/feed") && $0.receivedBytes <= body.count })
        #expect(reports.all.map(\.receivedBytes) == reports.all.map(\.receivedBytes).sorted())
        #expect(Set(reports.all.map(\.receivedBytes)).count == reports.all.count)
    }

    /// What a progress callback was told, in order.
    private final class Reports {
        var all: [FeedFetchProgress] = []
    }

    @Test func unchangedFeedIsNotDownloadedAgain() throws {
        let server = try LoopbackServer(routes: ["/feed": Self.conditional(Self.feed("S", items: ["a", "b"]), etag: "\"v1\"")])
        let fixture = try Fixture()
        let first = try fixture.fetcher.fetch(server.url("/feed"))
        let second = try fixture.fetcher.fetch(server.url("/feed"))
        #expect(!first.notModified)
        #expect(second.notModified)
        #expect(second.result.feed.episodes.map(\.title) == first.result.feed.episodes.map(\.title))
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, "\"v1\""])
    }

    @Test func refreshSkipsTheConditionalGET() throws {
        let server = try LoopbackServer(routes: ["/feed": Self.conditional(Self.feed("S", items: ["a"]), etag: "\"v1\"")])
        let fixture = try Fixture()
        _ = try fixture.fetcher.fetch(server.url("/feed"))
        let again = try fixture.fetcher.fetch(server.url("/feed"), refresh: true)
        #expect(!again.notModified)
        #expect(server.requests.last?.header("If-None-Match") == nil)
    }

    @Test func lastModifiedIsSentBackToo() throws {
        let body = Self.feed("S", items: ["a"])
        let server = try LoopbackServer(routes: ["/feed": .handler { request in
            request.header("If-Modified-Since") == "Mon, 16 Nov 2026 08:00:00 GMT"
                ? .status(304, body: Data()) : .fixed(body: body, headers: [("Last-Modified", "Mon, 16 Nov 2026 08:00:00 GMT")])
        }])
        let fixture = try Fixture()
        _ = try fixture.fetcher.fetch(server.url("/feed"))
        #expect(try fixture.fetcher.fetch(server.url("/feed")).notModified)
    }

    @Test func permanentMoveIsReportedAndRemembered() throws {
        let server = try LoopbackServer(routes: [
            "/old": .redirect(to: "/new", status: 301), "/new": .fixed(body: Self.feed("S", items: ["a"])),
        ])
        let fetched = try Fixture().fetcher.fetch(server.url("/old"))
        #expect(fetched.url == server.url("/new"))
        #expect(fetched.moves.count == 1)
        #expect(fetched.moves[0].contains("moved permanently to \(server.url("/new"))"))
    }

    @Test func temporaryRedirectKeepsTheAddress() throws {
        let server = try LoopbackServer(routes: [
            "/feed": .redirect(to: "/cdn/feed", status: 302),
            "/cdn/feed": .fixed(body: Self.feed("S", items: ["a"], extra: "<link>page</link>")),
        ])
        let fetched = try Fixture().fetcher.fetch(server.url("/feed"))
        #expect(fetched.url == server.url("/feed"))
        #expect(fetched.moves.isEmpty)
        // Relative links resolve against where the document really came from.
        #expect(fetched.result.feed.link == server.url("/cdn/page"))
    }

    @Test func newFeedURLIsFollowedOnce() throws {
        let server = try LoopbackServer()
        server.setRoute("/old", .fixed(body: Self.feed("Old", items: ["stale"], extra: "<itunes:new-feed-url>\(server.url("/new"))</itunes:new-feed-url>")))
        server.setRoute("/new", .fixed(body: Self.feed("New", items: ["fresh"], extra: "<itunes:new-feed-url>\(server.url("/newer"))</itunes:new-feed-url>")))
        let fetched = try Fixture().fetcher.fetch(server.url("/old"))
        #expect(fetched.result.feed.title == "New")
        #expect(fetched.url == server.url("/new"))
        #expect(fetched.moves.count == 1)
        #expect(server.requestCount(path: "/newer") == 0)
    }

    @Test func pagedFeedIsReadToTheEndWithoutLooping() throws {
        let server = try LoopbackServer()
        let next = { (page: String) in "<atom:link rel=\"next\" href=\"\(page)\"/>" }
        server.setRoute("/p1", .fixed(body: Self.feed("S", items: ["a", "b"], extra: next("/p2"))))
        server.setRoute("/p2", .fixed(body: Self.feed("S", items: ["b", "c"], extra: next("p3"))))
        server.setRoute("/p3", .fixed(body: Self.feed("S", items: ["d"], extra: next("/p1"))))
        let fetched = try Fixture().fetcher.fetch(server.url("/p1"))
        #expect(fetched.pages == 3)
        #expect(Set(fetched.result.feed.episodes.map(\.title)) == ["a", "b", "c", "d"])
        #expect(fetched.result.warnings.count == 1)
        #expect(server.requestCount(path: "/p1") == 1)
    }

    @Test func crePagedFeedFromItsFirstPage() throws {
        // The real Podlove feed, served as page 1 of 2 (its own next link is rewritten to this server).
        let original = String(decoding: try Fixtures.data("feeds/feedjira/CRE.xml"), as: UTF8.self)
        let server = try LoopbackServer()
        let firstPage = original.replacingOccurrences(
            of: #"<atom:link rel="next" href="[^"]*"\s*/>"#, with: "<atom:link rel=\"next\" href=\"\(server.url("/page2"))\"/>",
            options: .regularExpression)
        server.setRoute("/page1", .fixed(body: Data(firstPage.utf8)))
        server.setRoute("/page2", .fixed(body: Self.feed("CRE", items: ["CRE001 Older episode"])))
        let fetched = try Fixture().fetcher.fetch(server.url("/page1"))
        #expect(fetched.pages == 2)
        #expect(fetched.result.feed.episodes.count == 31)
        #expect(fetched.result.feed.episodes.contains { $0.title == "CRE001 Older episode" })
        #expect(fetched.result.feed.episodes.contains { !$0.chapters.isEmpty })
    }

    @Test func httpFailureNamesTheFeed() throws {
        let server = try LoopbackServer()
        let error = try #require(throws: FeedError.self) { try Fixture().fetcher.fetch(server.url("/gone")) }
        #expect(error.kind == .http(.status(404, url: server.url("/gone"), retryAfter: nil)))
        #expect(error.description.hasPrefix("feed \(server.url("/gone")): server answered 404 Not Found"))
    }

    @Test func webPageIsRefusedWithoutReadingItAll() throws {
        let page = Data(("<!DOCTYPE html><html>" + String(repeating: "<p>filler</p>", count: 200_000) + "</html>").utf8)
        let server = try LoopbackServer(routes: ["/show": .fixed(body: page, headers: [("Content-Type", "text/html")])])
        let error = try #require(throws: FeedError.self) { try Fixture().fetcher.fetch(server.url("/show")) }
        #expect(error.kind == .html)
    }

    @Test func serverCharsetIsUsedWhenTheDocumentDoesNotDeclareOne() throws {
        let body = Data("<rss><channel><title>Caf\u{E9}</title></channel></rss>".unicodeScalars.map { UInt8($0.value) })
        let server = try LoopbackServer(routes: ["/feed": .fixed(body: body, headers: [("Content-Type", "application/rss+xml; charset=\"ISO-8859-1\"")])])
        #expect(try Fixture().fetcher.fetch(server.url("/feed")).result.feed.title == "Café")
    }

    @Test func charsetParameterIsParsedLikeServersWriteIt() {
        #expect(FeedFile.charset(of: "text/xml; charset=UTF-8") == "UTF-8")
        #expect(FeedFile.charset(of: "text/xml;charset= 'us-ascii'") == "us-ascii")
        #expect(FeedFile.charset(of: "text/xml; qs=0.9") == nil)
        #expect(FeedFile.charset(of: nil) == nil)
    }
}
