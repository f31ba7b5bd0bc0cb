import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// An OPML entry that is a show's web page rather than its feed: `import` stores it as written
/// (it fetches nothing), and the first `update` reads the page for the feed it names, moves the
/// subscription there with a note and downloads as for any feed (in the background worker too).
/// A page that names no feed is one error line for that subscription alone; an established
/// subscription that answers with a page stays a failure.
@Suite(.timeLimit(.minutes(5))) struct ImportedPageTests {
    private static func page(head: String) -> ServerRoute {
        .fixed(body: Data("<!doctype html><html><head><title>A Show</title>\(head)</head><body><p>Listen!</p></body></html>".utf8),
               headers: [("Content-Type", "text/html; charset=utf-8")])
    }

    private static func opml(_ outlines: [(title: String, url: String)]) -> String {
        let entries = outlines.map { #"<outline type="rss" text="\#($0.title)" title="\#($0.title)" xmlUrl="\#($0.url)"/>"# }
        return #"<?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>"#
            + entries.joined() + "</body></opml>"
    }

    @Test func anImportedPageIsFollowedToItsFeedByTheFirstUpdate() async throws {
        let scratch = try TemporaryDirectory(prefix: "imported-page")
        let server = try LoopbackServer()
        let paged = ServedShow("Paged Show", slug: "paged", episodes: 3, on: server)
        let plain = ServedShow("Plain Show", slug: "plain", episodes: 2, on: server)
        server.setRoute("/paged/", Self.page(head: #"<link rel="alternate" type="application/rss+xml" href="feed.xml">"#))
        server.setRoute("/bare/", Self.page(head: #"<link rel="stylesheet" href="/site.css">"#))
        let file = scratch.path("mine.opml")
        try Self.opml([("Paged Show", server.url("/paged/")), ("Plain Show", plain.feedURL), ("Bare Page", server.url("/bare/"))])
            .write(toFile: file, atomically: true, encoding: .utf8)
        let podcast = try SubscriptionScenario.home()

        let imported = try await podcast.run(["import", file])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(server.requestCount(path: "/paged/") == 0, "import fetches nothing")

        let update = try await podcast.run(["update"])
        #expect(update.status == 1, "the bare page failed: \(update.stderr)")
        #expect(update.stderrLines.contains(
            "note: \(server.url("/paged/")) → \(paged.feedURL) (from the page's alternate link); the subscription now uses the feed's address"),
            "\(update.stderr)")
        let errors = update.stderrLines.filter { $0.hasPrefix("error:") }
        #expect(errors.count == 1, "\(update.stderr)")
        #expect(errors.first?.hasPrefix("error: feed \"Bare Page\": feed \(server.url("/bare/")): this is an HTML page that names no feed") == true,
            "\(errors)")
        // Both feeds' newest episodes are on disk, the page's as its feed's.
        #expect(paged.filesOnDisk(in: podcast) == [paged.fileName(3)])
        #expect(paged.stored(3, in: podcast) == paged.episode(3).body)
        #expect(plain.stored(2, in: podcast) == plain.episode(2).body)

        let listed = try await SubscriptionScenario.subscriptions(podcast)
        #expect(listed["Paged Show"]?["url"] as? String == paged.feedURL)
        #expect(listed["Paged Show"]?["last_result"] as? String == "moved")
        #expect(listed["Plain Show"]?["last_result"] as? String == "updated")
        #expect(listed["Bare Page"]?["url"] as? String == server.url("/bare/"))
        #expect(listed["Bare Page"]?["last_result"] as? String == "failed")

        // From now on the feed is asked for, never the page again; what was downloaded stays done.
        let pageRequests = server.requestCount(path: "/paged/")
        paged.publish()
        let next = try await podcast.run(["update", "Paged Show"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(server.requestCount(path: "/paged/") == pageRequests)
        #expect(paged.filesOnDisk(in: podcast) == [paged.fileName(3), paged.fileName(4)].sorted())
        #expect(server.requestCount(path: paged.episode(3).path) == 1)
    }

    @Test func theBackgroundWorkerFollowsAnImportedPageToo() async throws {
        let scratch = try TemporaryDirectory(prefix: "imported-page")
        let server = try LoopbackServer()
        let paged = ServedShow("Paged Show", slug: "paged", episodes: 2, on: server)
        server.setRoute("/paged/", Self.page(head: #"<link rel="alternate" type="application/rss+xml" href="/paged/feed.xml">"#))
        let file = scratch.path("mine.opml")
        try Self.opml([("Paged Show", server.url("/paged/"))]).write(toFile: file, atomically: true, encoding: .utf8)
        let podcast = try SubscriptionScenario.home()
        let guardian = WorkerGuard(podcast)
        #expect(try await podcast.run(["import", file]).status == 0)

        let launched = try await podcast.run(["update", "--background"])
        #expect(launched.status == 0, "\(launched.stderr)")
        #expect(try await ResumeScenario.wait(upTo: .seconds(60)) { paged.stored(2, in: podcast) != nil && !BackgroundScenario.workerRuns(podcast) })
        #expect(paged.stored(2, in: podcast) == paged.episode(2).body)
        #expect(try await SubscriptionScenario.subscriptions(podcast)["Paged Show"]?["url"] as? String == paged.feedURL)
        _ = guardian
    }

    @Test func anEstablishedSubscriptionThatAnswersWithAPageStaysAFailure() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 2, on: server)
        let other = ServedShow("Other Feed", slug: "other", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)

        server.setRoute("/hour/feed.xml", Self.page(head: #"<link rel="alternate" type="application/rss+xml" href="/other/feed.xml">"#))
        let update = try await podcast.run(["update"])
        #expect(update.status == 1, "\(update.stderr)")
        #expect(update.stderrLines.filter { $0.hasPrefix("error:") } == [
            "error: feed \"Loopback Hour\": feed \(show.feedURL): this is an HTML page, not a feed; "
                + "check that the address is the podcast's RSS feed, not its web page",
        ], "\(update.stderr)")
        #expect(!update.stderr.contains("note:"), "\(update.stderr)")
        #expect(try await SubscriptionScenario.subscriptions(podcast)["Loopback Hour"]?["url"] as? String == show.feedURL)
        #expect(server.requestCount(path: "/other/feed.xml") == 0)
        _ = other
    }
}
