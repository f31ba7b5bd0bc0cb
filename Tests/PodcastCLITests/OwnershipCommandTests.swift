import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// What podcast may delete or write over, through the built binary: only files it wrote, unchanged
/// since, for a reason of their own. Each test is one of the red team's reproductions.
@Suite(.timeLimit(.minutes(5))) struct OwnershipCommandTests {
    /// One item of a hand-made feed: no guid, so its identity is its enclosure's address.
    private struct Item {
        var title: String
        var path: String
        var date: String?
        var type = "audio/mpeg"
        var length: Int?
    }

    /// Serves `/feed.xml` titled `title` with `items` (newest first), each item's media at its path.
    private static func serve(_ items: [Item], title: String, feedPath: String = "/feed.xml", on server: LoopbackServer) {
        let body = items.map { item in
            let date = item.date.map { "<pubDate>\($0)</pubDate>" } ?? ""
            let length = item.length.map { " length=\"\($0)\"" } ?? ""
            return "<item><title>\(item.title)</title>\(date)<enclosure url=\"\(server.url(item.path))\"\(length) type=\"\(item.type)\"/></item>"
        }.joined(separator: "\n")
        let feed = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>\(title)</title><link>https://example.com/</link>
            \(body)
            </channel></rss>
            """
        server.setRoute(feedPath, .fixed(body: Data(feed.utf8), headers: [("Content-Type", "application/rss+xml")]))
        for item in items {
            server.setRoute(item.path, .file(body: media(item.path), contentType: item.type, etag: "\"\(item.path)\""))
        }
    }

    /// The served bytes of the media at `path`: distinct per path.
    private static func media(_ path: String) -> Data {
        ResumeScenario.media(seed: UInt64(truncatingIfNeeded: path.hashValue & 0xFFFF), size: 20_000 + path.utf8.count)
    }

    /// Subscribes `podcast` to the feed at `url` with `options`, expecting success.
    private static func subscribe(_ podcast: PodcastBinary, to url: String, _ options: [String] = []) async throws {
        let subscribed = try await podcast.run(["subscribe", url] + options)
        #expect(subscribed.status == 0, "subscribe \(url): \(subscribed.stderr)")
    }

    // MARK: 1. A user's own file at an episode's name

    @Test func aUsersFileAtAnEpisodesNameIsNeverTakenDeletedOrOverwritten() async throws {
        let server = try LoopbackServer()
        Self.serve([Item(title: "taxes", path: "/taxes.pdf", type: "application/pdf")], title: "Documents", on: server)
        let podcast = try SubscriptionScenario.home()
        let home = podcast.home.path("user")
        let taxes = home + "/Documents/taxes.pdf"
        try FileManager.default.createDirectory(atPath: home + "/Documents", withIntermediateDirectories: true)
        let mine = Data("my tax return".utf8)
        try mine.write(to: URL(filePath: taxes))

        try await Self.subscribe(podcast, to: server.url("/feed.xml"), ["--keep", "1", "--episodes-dir", home])
        let first = try await podcast.run(["update", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!first.stderr.contains("already in the Episodes directory"), "\(first.stderr)")
        #expect(FileManager.default.contents(atPath: taxes) == mine)
        #expect(FileManager.default.contents(atPath: home + "/Documents/taxes (2).pdf") == Self.media("/taxes.pdf"))

        // A newer episode: keep 1 removes podcast's own older file, never the user's.
        Self.serve([
            Item(title: "receipts", path: "/receipts.pdf", type: "application/pdf"),
            Item(title: "taxes", path: "/taxes.pdf", type: "application/pdf"),
        ], title: "Documents", on: server)
        let second = try await podcast.run(["update"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(FileManager.default.contents(atPath: taxes) == mine)
        #expect(!second.stderr.contains("deleted \(taxes)"), "\(second.stderr)")
        #expect(SubscriptionScenario.names(in: home + "/Documents") == ["receipts.pdf", "taxes.pdf"])

        // Asked for by hand: download --force and delete leave the user's file alone too.
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let forced = try await podcast.run(["download", "2", "--force", "--episodes-dir", home])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(FileManager.default.contents(atPath: taxes) == mine)
        let deleted = try await podcast.run(["delete", "2"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(FileManager.default.contents(atPath: taxes) == mine)
        #expect(SubscriptionScenario.names(in: home + "/Documents") == ["receipts.pdf", "taxes.pdf"])
    }

    // MARK: 2. Keep and unsubscribe touch only their own

    @Test func keepAndUnsubscribeNeverTakeAFileDownloadedByHand() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Hand Picked", slug: "hand", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        let archive = podcast.home.path("archive")
        #expect(try await podcast.run(["episodes", show.feedURL]).status == 0)
        let byHand = try await podcast.run(["download", "3", "--episodes-dir", archive])
        #expect(byHand.status == 0, "\(byHand.stderr)")
        let kept = archive + "/Hand Picked/2026-11-01 Episode 1.mp3"
        #expect(FileManager.default.contents(atPath: kept) == show.episode(1).body)

        try await SubscriptionScenario.subscribe(podcast, to: show, ["--keep", "1", "--first", "2"])
        let updated = try await podcast.run(["update"])
        #expect(updated.status == 0, "\(updated.stderr)")
        show.publish()
        let again = try await podcast.run(["update"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(FileManager.default.contents(atPath: kept) == show.episode(1).body, "downloaded by hand: not keep's")
        #expect(SubscriptionScenario.names(in: show.folder(in: podcast)) == ["2026-11-04 Episode 4.mp3"])

        let gone = try await podcast.run(["unsubscribe", show.feedURL, "--delete-files"])
        #expect(gone.status == 0, "\(gone.stderr)")
        #expect(gone.stderr.contains("left 1 file of \"Hand Picked\" that its updates did not download"), "\(gone.stderr)")
        #expect(FileManager.default.contents(atPath: kept) == show.episode(1).body, "downloaded by hand: not unsubscribe's")
        #expect(SubscriptionScenario.names(in: show.folder(in: podcast)).isEmpty)
    }

    // MARK: 4. Undated feeds and keep

    @Test func keepNeverRemovesTheUndatedEpisodeItJustDownloaded() async throws {
        let server = try LoopbackServer()
        Self.serve([Item(title: "Episode 1", path: "/e1.mp3")], title: "Undated", on: server)
        let podcast = try SubscriptionScenario.home()
        try await Self.subscribe(podcast, to: server.url("/feed.xml"), ["--keep", "1"])
        #expect(try await podcast.run(["update"]).status == 0)
        let folder = podcast.episodesDirectory + "/Undated"
        #expect(SubscriptionScenario.names(in: folder) == ["Episode 1.mp3"])

        Self.serve([Item(title: "Episode 2", path: "/e2.mp3"), Item(title: "Episode 1", path: "/e1.mp3")], title: "Undated", on: server)
        let second = try await podcast.run(["update"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(SubscriptionScenario.names(in: folder) == ["Episode 2.mp3"], "\(second.stderr)")
        #expect(FileManager.default.contents(atPath: folder + "/Episode 2.mp3") == Self.media("/e2.mp3"))
        // And it stays: the next update neither deletes nor fetches it again.
        let third = try await podcast.run(["update"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(SubscriptionScenario.names(in: folder) == ["Episode 2.mp3"])
        #expect(server.requestCount(path: "/e2.mp3") == 1)
    }

    // MARK: 7. Collisions

    @Test func episodesOfOneNameKeepTheirOwnCompanions() async throws {
        let server = try LoopbackServer()
        let date = "Mon, 02 Nov 2026 08:00:00 GMT"
        Self.serve([
            Item(title: "Twins", path: "/twins.m4a", date: date, type: "audio/mp4"),
            Item(title: "Twins", path: "/twins.mp3", date: date),
        ], title: "Pairs", on: server)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["download", "all", "--with", "info"])
        #expect(result.status == 0, "\(result.stderr)")
        let folder = podcast.episodesDirectory + "/Pairs"
        let names = SubscriptionScenario.names(in: folder)
        #expect(names.count == 4, "\(names)")
        let media = names.filter { !$0.hasSuffix(".info.json") }
        for name in media {
            let stem = String(name[..<(name.lastIndex(of: ".") ?? name.endIndex)])
            #expect(names.contains(stem + ".info.json"), "\(name) has its own info file: \(names)")
        }
        #expect(Set(media.map { String($0[..<($0.lastIndex(of: ".") ?? $0.endIndex)]) }).count == 2, "\(media)")
    }

    @Test func twoPodcastsOfOneTitleKeepTheirOwnPlaylists() async throws {
        let server = try LoopbackServer()
        Self.serve([Item(title: "A one", path: "/a1.mp3", date: "Mon, 02 Nov 2026 08:00:00 GMT")], title: "Same", feedPath: "/a.xml", on: server)
        Self.serve([Item(title: "B one", path: "/b1.mp3", date: "Tue, 03 Nov 2026 08:00:00 GMT")], title: "Same", feedPath: "/b.xml", on: server)
        let podcast = try SubscriptionScenario.home()
        for feed in ["/a.xml", "/b.xml"] {
            try await Self.subscribe(podcast, to: server.url(feed), ["--first", "1"])
        }
        let updated = try await podcast.run(["update", "--playlist"])
        #expect(updated.status == 0, "\(updated.stderr)")
        let folder = podcast.episodesDirectory + "/Same"
        let playlists = SubscriptionScenario.names(in: folder).filter { $0.hasSuffix(".m3u8") }
        #expect(playlists == ["Same (2).m3u8", "Same.m3u8"], "\(SubscriptionScenario.names(in: folder))")
        let texts = playlists.compactMap { SubscriptionScenario.contents(folder + "/" + $0).map { String(decoding: $0, as: UTF8.self) } }
        #expect(texts.filter { $0.contains("A one.mp3") && !$0.contains("B one") }.count == 1, "\(texts)")
        #expect(texts.filter { $0.contains("B one.mp3") && !$0.contains("A one") }.count == 1, "\(texts)")
    }
}
