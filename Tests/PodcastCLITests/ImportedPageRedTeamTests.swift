import Foundation
import PodcastKit
import PodcastTestSupport
import Synchronization
import Testing

/// Bytes a raw route sent, counted across threads.
private final class SentBytes: Sendable {
    let count = Mutex(0)
}

/// Red team: imported OPML entries that are web pages, served by a hostile server. Every page
/// ends in one line for its own subscription, nothing loops, the others go on, and no wrong
/// feed is recorded.
@Suite(.timeLimit(.minutes(3))) struct ImportedPageRedTeamTests {
    private static func page(head: String) -> ServerRoute {
        .fixed(body: Data("<!doctype html><html><head><title>A Show</title>\(head)</head><body><p>Listen!</p></body></html>".utf8),
               headers: [("Content-Type", "text/html; charset=utf-8")])
    }

    private static func alternate(_ href: String) -> ServerRoute {
        page(head: #"<link rel="alternate" type="application/rss+xml" href="\#(href)">"#)
    }

    private static func opml(_ outlines: [(title: String, url: String)]) -> String {
        let entries = outlines.map { #"<outline type="rss" text="\#($0.title)" title="\#($0.title)" xmlUrl="\#($0.url)"/>"# }
        return #"<?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>"#
            + entries.joined() + "</body></opml>"
    }

    @Test func hostilePagesEachEndInOneLineAndTheOthersGoOn() async throws {
        let scratch = try TemporaryDirectory(prefix: "red-imported-page")
        let server = try LoopbackServer()
        let far = try LoopbackServer()
        let third = try LoopbackServer()
        let plain = ServedShow("Plain Show", slug: "plain", episodes: 2, on: server)
        let moved = ServedShow("Moved Show", slug: "moved", episodes: 2, on: third)
        let redirected = ServedShow("Redirected Show", slug: "redir", episodes: 2, on: server)
        // A page naming a "feed" that is a page naming another page…
        server.setRoute("/chain/", Self.alternate("/chain2/"))
        server.setRoute("/chain2/", Self.alternate("/chain3/"))
        server.setRoute("/chain3/", Self.alternate("/chain/"))
        // …a page naming itself, a page naming another subscription's feed…
        server.setRoute("/self/", Self.alternate("/self/"))
        server.setRoute("/steal/", Self.alternate(plain.feedURL))
        // …a page naming a feed that moves permanently onto another subscription's feed (it was
        // moved to that feed, with a note beside its error, before 'returnToPage')…
        server.setRoute("/sneak/", Self.alternate("/sneak.xml"))
        server.setRoute("/sneak.xml", .redirect(to: plain.feedURL, status: 301))
        // …a page that redirects to the page naming the feed (relative to where it ended)…
        server.setRoute("/old/", .redirect(to: "/redir/"))
        server.setRoute("/redir/", Self.alternate("feed.xml"))
        // …a page naming a feed on another host that moves permanently to a third…
        server.setRoute("/far/", Self.alternate(far.url("/feed.xml")))
        far.setRoute("/feed.xml", .redirect(to: moved.feedURL, status: 301))
        // …and a page whose feed fails.
        server.setRoute("/broken/", Self.alternate("/broken.xml"))
        server.setRoute("/broken.xml", .status(500))
        // …and a page that never ends, its feed named at its start.
        let huge = ServedShow("Huge Show", slug: "huge", episodes: 2, on: server)
        let served = SentBytes()
        server.setRoute("/hugepage/", .raw { _, writer in
            try writer.sendHead([("Content-Type", "text/html"), ("Connection", "close")])
            try writer.send(#"<!doctype html><html><head><link rel="alternate" type="application/rss+xml" href="/huge/feed.xml"></head><body>"#)
            let filler = [UInt8](repeating: 0x41, count: 64 * 1024)
            for _ in 0..<1024 {
                try writer.send(filler)
                served.count.withLock { $0 += filler.count }
            }
        })
        let file = scratch.path("mine.opml")
        try Self.opml([
            ("Chain", server.url("/chain/")), ("Self", server.url("/self/")), ("Steal", server.url("/steal/")),
            ("Sneak", server.url("/sneak/")),
            ("Old", server.url("/old/")), ("Far", server.url("/far/")), ("Broken", server.url("/broken/")),
            ("Huge", server.url("/hugepage/")),
            ("Plain Show", plain.feedURL),
        ]).write(toFile: file, atomically: true, encoding: .utf8)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["import", file]).status == 0)

        let update = try await podcast.run(["update"])
        #expect(update.status == 1, "\(update.stderr)")
        let errors = update.stderrLines.filter { $0.hasPrefix("error:") }
        for title in ["Chain", "Self", "Steal", "Sneak", "Broken"] {
            #expect(errors.filter { $0.hasPrefix("error: feed \"\(title)\":") }.count == 1, "\(title): \(update.stderr)")
        }
        #expect(errors.count == 5, "\(update.stderr)")
        #expect(!update.stderrLines.contains { $0.hasPrefix("note: \(server.url("/sneak/"))") }, "no move said beside its error: \(update.stderr)")
        #expect(server.requestCount(path: "/chain3/") == 0, "a page's feed is never read as a page")
        #expect(server.requestCount(path: "/self/") == 2, "the page, then the same address as its feed")

        let listed = try await SubscriptionScenario.subscriptions(podcast)
        for (title, url) in [("Chain", "/chain/"), ("Self", "/self/"), ("Steal", "/steal/"), ("Sneak", "/sneak/"), ("Broken", "/broken/")] {
            #expect(listed[title]?["url"] as? String == server.url(url), "\(title) stays where it was")
            #expect(listed[title]?["last_result"] as? String == "failed", "\(title)")
        }
        // The ones that moved took their feed's title.
        #expect(listed["Redirected Show"]?["url"] as? String == redirected.feedURL)
        #expect(listed["Moved Show"]?["url"] as? String == moved.feedURL)
        #expect(listed["Huge Show"]?["url"] as? String == huge.feedURL)
        #expect(huge.stored(2, in: podcast) == huge.episode(2).body)
        #expect(served.count.withLock { $0 } < 32 * 1024 * 1024, "64 MiB offered: read no further than its cap (and the socket buffers)")
        #expect(plain.stored(2, in: podcast) == plain.episode(2).body)
        #expect(moved.stored(2, in: podcast) == moved.episode(2).body)
        #expect(redirected.stored(2, in: podcast) == redirected.episode(2).body)
        #expect(plain.filesOnDisk(in: podcast) == [plain.fileName(2)], "the stolen feed's episodes are not downloaded twice")
    }
}
