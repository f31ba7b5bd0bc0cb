import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// The second red team's reproductions through the built binary (issue 27): an upgraded store and
/// the new identity rules. Each test fails on the code it was written against.
@Suite(.timeLimit(.minutes(5))) struct OwnershipRedTeam2Tests {
    /// Takes the store back to before the upgrade's data steps (the last three migrations: which
    /// file each finished file is, identities, feed addresses), so the next run carries them out
    /// on the rows the earlier version wrote, as an upgrade would.
    /// The schema before the step that records which file each finished file placed is.
    private static let beforeTheUpgrade =
        " PRAGMA user_version = \(StateStore.migrations.firstIndex { $0.summary.hasPrefix("which file each finished file placed") } ?? 0);"

    /// Serves at `path` a feed of `show`'s episodes, newest first, without guids, or with
    /// `g-<number>` guids when `guids`; its media under `mediaFolder` when given.
    private static func serveOwnFeed(_ show: ServedShow, at path: String, guids: Bool, mediaFolder: String? = nil) {
        let server = show.server
        let items = (1...show.episodes.count).reversed().map { number in
            var episode = show.episode(number)
            if let mediaFolder {
                // The same bytes at another address (the podcast moved its files to another host or folder).
                episode.path = mediaFolder + "/\(number).mp3"
                server.setRoute(episode.path, .fixed(body: episode.body, headers: [("Content-Type", "audio/mpeg")]))
            }
            return """
                <item><title>\(episode.title)</title>\(guids ? "<guid isPermaLink=\"false\">g-\(number)</guid>" : "")
                <pubDate>\(ServedShow.httpDate(episode.published))</pubDate>
                <enclosure url="\(server.url(episode.path))" length="\(episode.body.count)" type="audio/mpeg"/></item>
                """
        }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>\(show.title)</title><link>https://example.com/own</link>
            \(items.joined(separator: "\n"))
            </channel></rss>
            """
        server.setRoute(path, .fixed(body: Data(xml.utf8), headers: [("Content-Type", "application/rss+xml")]))
    }

    // MARK: R2-1. A feed that gains guids

    /// A feed without guids gains them. The first update after that recognises each item as the
    /// episode it knew (same title and time, `EpisodeTriage.sameEpisodes`) and stores the new guid
    /// on the known row, whose identity stays the old fallback. At the next update both sides have
    /// a guid, so they are no longer matched: once the feed changes (one new episode), every
    /// episode is new again and downloaded a second time, as `(2)` copies (the CHANGELOG says a
    /// feed that "gains or drops guids" downloads nothing again).
    @Test func aFeedThatGainsGuidsDoesNotDownloadItsEpisodesAgain() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Gains Guids", slug: "gains", episodes: 2, on: server)
        let path = "/gains/own.xml"
        Self.serveOwnFeed(show, at: path, guids: false)
        let podcast = try SubscriptionScenario.home()
        let subscribed = try await podcast.run(["subscribe", server.url(path), "--first", "2"])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        let first = try await podcast.run(["update"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1, 2))

        Self.serveOwnFeed(show, at: path, guids: true)
        let gained = try await podcast.run(["update"])
        #expect(gained.status == 0, "\(gained.stderr)")
        // The feed changes again (one new episode), so the next update reads it and triages it.
        show.publish()
        Self.serveOwnFeed(show, at: path, guids: true)
        let next = try await podcast.run(["update"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(show.mediaRequests.sorted() == show.paths(1, 2, 3).sorted(), "each episode fetched once: \(next.stderr)")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1, 2, 3), "no (2) copies")
    }

    // MARK: R2-2. A store written before addresses were normalised

    /// The version before this one stored a subscription's address as typed (`HTTP://…`, an
    /// upper-case host, `:80`, `#fragment`), and its downloads under that key (seen on a real store
    /// made by 0cd3131). Now every `<feed>` argument is normalised, so `podcast episodes <url>`
    /// keys its listing by the normalised address, and the subscription's downloads (still under
    /// the typed one, no migration rewrote them) are not found: `download` fetches the episode a
    /// second time as a `(2)` copy (the old version skipped it), and `delete N` of that listing
    /// finds nothing to delete.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell writes the old rows"))
    func aSubscriptionStoredAsTypedByTheEarlierVersionIsFoundByItsNormalisedAddress() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Typed", slug: "typed", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "1"])
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.stored(1, in: podcast) == show.episode(1).body)

        // The rows as the earlier version wrote them for `podcast subscribe HTTP://…`.
        let typed = "HTTP://" + show.feedURL.dropFirst("http://".count)
        let edit = try ChildProcess(URL(filePath: "/usr/bin/sqlite3"), [
            podcast.stateDirectory + "/state.sqlite",
            "UPDATE subscriptions SET url = '\(typed)'; UPDATE downloads SET feed = '\(typed)'; UPDATE library_files SET feed = '\(typed)';"
                + Self.beforeTheUpgrade,
        ])
        #expect(await edit.finish(within: .seconds(10)).status == 0)

        #expect(try await podcast.run(["episodes", show.feedURL]).status == 0)
        let download = try await podcast.run(["download", "1"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(show.mediaRequests == show.paths(1), "fetched again: \(download.stderr)")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1), "a (2) copy: \(download.stderr)")
    }
    // MARK: R2-3. Undated episodes told apart only by their query

    /// An undated feed without guids that shows its latest episode only, under one title, on a
    /// host that tells episodes apart only by the query (`play.mp3?id=N`, which `EnclosureIdentity`
    /// rightly keeps). When episode 2 replaces episode 1, `sameEpisodes` takes it for episode 1
    /// (same title; both undated, so the enclosure's path, query dropped): it is recorded under
    /// episode 1's identity and never downloaded.
    @Test func anUndatedEpisodeToldApartOnlyByItsQueryIsNotTakenForTheOneBefore() async throws {
        let server = try LoopbackServer()
        let bodies = [1: Data(repeating: 0x31, count: 4_000), 2: Data(repeating: 0x32, count: 5_000)]
        server.setRoute("/latest/play.mp3", .handler { request in
            guard let id = request.query?.split(separator: "=").last.flatMap({ Int($0) }), let body = bodies[id] else { return .status(404) }
            return .fixed(body: body, headers: [("Content-Type", "audio/mpeg")])
        })
        func serve(_ id: Int) {
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0"><channel><title>Latest</title><link>https://example.com/latest</link>
                <item><title>The latest news</title>
                <enclosure url="\(server.url("/latest/play.mp3"))?id=\(id)" length="\(bodies[id]!.count)" type="audio/mpeg"/></item>
                </channel></rss>
                """
            server.setRoute("/latest/feed.xml", .fixed(body: Data(xml.utf8), headers: [("Content-Type", "application/rss+xml")]))
        }
        serve(1)
        let podcast = try SubscriptionScenario.home()
        let subscribed = try await podcast.run(["subscribe", server.url("/latest/feed.xml"), "--first", "1"])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        #expect(try await podcast.run(["update"]).status == 0)

        serve(2)
        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(server.requests.filter { $0.path == "/latest/play.mp3" }.map(\.query) == ["id=1", "id=2"], "\(update.stderr)")
        let folder = podcast.episodesDirectory + "/Latest"
        let stored = SubscriptionScenario.names(in: folder).compactMap { SubscriptionScenario.contents(folder + "/" + $0) }
        #expect(Set(stored) == Set([bodies[1]!, bodies[2]!]), "episode 2 is not on disk: \(update.stderr)")
    }
    // MARK: R2-4. What a subscription recognised, the listing does not

    /// A feed without guids moves its files (same episodes, same titles and times, new enclosure
    /// URLs). `update` rightly recognises each as the episode it downloaded (`sameEpisodes`) and
    /// downloads nothing. But `podcast episodes` makes its listing by the items' new identities,
    /// which no download record has: the episode shows as not downloaded, `podcast download 1`
    /// fetches it a second time as a `(2)` copy, and `podcast delete 1` finds nothing to delete.
    @Test func anEpisodeTheSubscriptionRecognisedUnderANewURLIsDownloadedInTheListingToo() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Moved Files", slug: "movedfiles", episodes: 1, on: server)
        let path = "/movedfiles/own.xml"
        Self.serveOwnFeed(show, at: path, guids: false)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", server.url(path), "--first", "1"]).status == 0)
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.stored(1, in: podcast) == show.episode(1).body)

        Self.serveOwnFeed(show, at: path, guids: false, mediaFolder: "/cdn2")
        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(server.requestCount(path: "/cdn2/1.mp3") == 0, "update recognised the episode")

        #expect(try await podcast.run(["episodes", server.url(path)]).status == 0)
        let download = try await podcast.run(["download", "1"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(server.requestCount(path: "/cdn2/1.mp3") == 0, "fetched a second time: \(download.stderr)")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1), "a (2) copy: \(download.stderr)")
    }
    // MARK: R2-5. Duplicate subscriptions an earlier version made

    /// Finding 8 of issue 27 on a store the earlier version wrote: `subscribe http://h/x` and
    /// `subscribe HTTP://h/x` made two subscriptions of one feed (reproduced with the binary of
    /// 0cd3131, then upgraded). Normalising addresses where they enter stops new duplicates, but
    /// nothing merges the existing pair, so every new episode is still downloaded twice, `(2)`
    /// copy and all, at every update from then on.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell writes the old rows"))
    func twoSubscriptionsOfOneFeedFromTheEarlierVersionDoNotDownloadEachEpisodeTwice() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Twice", slug: "twice", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])
        #expect(try await podcast.run(["update"]).status == 0)

        // The second subscription the earlier version made for the feed typed as `HTTP://…`.
        let typed = "HTTP://" + show.feedURL.dropFirst("http://".count)
        let edit = try ChildProcess(URL(filePath: "/usr/bin/sqlite3"), [
            podcast.stateDirectory + "/state.sqlite",
            """
            CREATE TEMP TABLE s AS SELECT * FROM subscriptions; UPDATE s SET id = id + 100, url = '\(typed)';
            INSERT INTO subscriptions SELECT * FROM s;
            CREATE TEMP TABLE e AS SELECT * FROM subscription_episodes; UPDATE e SET subscription = subscription + 100;
            INSERT INTO subscription_episodes SELECT * FROM e;
            """ + Self.beforeTheUpgrade,
        ])
        let edited = await edit.finish(within: .seconds(10))
        #expect(edited.status == 0, "\(edited.stderr)")

        show.publish()
        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.mediaRequests == show.paths(2), "episode 2 fetched once: \(update.stderr)")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(2), "a (2) copy: \(update.stderr)")
    }
    // MARK: R2-6. The symbolic-link swap, on a file the earlier version placed

    /// The first red team's R1 (a podcast folder replaced by a link to the user's archive of
    /// copies) on a download the earlier version made: its record has no device and inode (the
    /// migration adds the columns empty and never fills them), so the only test left is the
    /// digest, which the archive's copy passes, and `delete` removes the user's archive copy
    /// through the link.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell writes the old rows"))
    func deleteDoesNotFollowALinkSwappedInForTheFolderOfAFileTheEarlierVersionPlaced() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Old Linked", slug: "oldlinked", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["episodes", show.feedURL]).status == 0)
        #expect(try await podcast.run(["download", "1"]).status == 0)
        // As the earlier version recorded it: no device, no inode.
        let edit = try ChildProcess(URL(filePath: "/usr/bin/sqlite3"), [
            podcast.stateDirectory + "/state.sqlite",
            "UPDATE downloads SET file_device = NULL, file_inode = NULL, file_changed = NULL;" + Self.beforeTheUpgrade,
        ])
        #expect(await edit.finish(within: .seconds(10)).status == 0)
        // The first run after the upgrade: the store is brought up to date before the user's swap.
        #expect(try await podcast.run(["status"]).status == 0)

        let folder = show.folder(in: podcast)
        let archive = podcast.home.path("archive/Old Linked")
        try FileManager.default.createDirectory(atPath: podcast.home.path("archive"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder, toPath: archive)
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: archive)

        let deleted = try await podcast.run(["delete", "1"])
        #expect(deleted.status == 1, "\(deleted.stderr)")
        #expect(
            SubscriptionScenario.contents(archive + "/" + show.fileName(1)) == show.episode(1).body,
            "podcast deleted the archive's copy through the link: \(deleted.stderr)")
    }
}
