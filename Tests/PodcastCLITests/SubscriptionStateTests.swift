import Foundation
import PodcastKit
import PodcastTestSupport
import PodcastText
import Testing

/// The settings and states of subscriptions that must take, through the built binary: a changed
/// `--first`, a gone feed revived, `catch-up` after a fetch, every feed of `subscribe` reported,
/// what `--keep` may remove, deleted episodes in `history`, and what `resume` leaves alone.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionStateTests {
    // MARK: --first

    @Test func firstZeroOnAnExistingSubscriptionKeepsTheBaselineFromDownloading() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        let changed = try await podcast.run(["subscribe", show.feedURL, "--first", "0", "--json"])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try await SubscriptionScenario.subscriptions(podcast)[show.title]?["new"] as? Int == 0)

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.mediaRequests.isEmpty, "\(show.mediaRequests)")
        #expect(show.filesOnDisk(in: podcast).isEmpty)
    }

    @Test func raisingFirstMarksMoreOfTheBaselineNew() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 4, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["subscribe", show.feedURL, "--first", "3"]).status == 0)
        #expect(try await SubscriptionScenario.subscriptions(podcast)[show.title]?["new"] as? Int == 3)

        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.mediaRequests.sorted() == show.paths(2, 3, 4).sorted())
    }

    @Test func firstGivenBeforeTheBaselineAppliesAtTheFirstUpdate() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        let file = podcast.home.path("feeds.opml")
        try Data("""
            <?xml version="1.0"?><opml version="2.0"><body><outline text="Hour" xmlUrl="\(show.feedURL)"/></body></opml>
            """.utf8).write(to: URL(filePath: file))
        #expect(try await podcast.run(["import", file]).status == 0)
        #expect(try await podcast.run(["subscribe", show.feedURL, "--first", "2"]).status == 0)
        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.mediaRequests.sorted() == show.paths(2, 3).sorted())
    }

    // MARK: Gone feeds

    /// Makes `show`'s subscription gone: an update meets 410, then the feed is served again.
    private func goneAndBack(_ podcast: PodcastBinary, _ show: ServedShow, _ server: LoopbackServer) async throws {
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)
        server.setRoute(show.feedPath, .status(410))
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(try await SubscriptionScenario.subscriptions(podcast)[show.title]?["gone"] as? Bool == true)
        show.publish()
    }

    @Test func subscribingAgainRevivesAGoneFeedWithItsHistory() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        try await goneAndBack(podcast, show, server)

        let revived = try await podcast.run(["subscribe", show.feedURL, "--json"])
        #expect(revived.status == 0, "\(revived.stderr)")
        let rows = SubscriptionScenario.document(revived.stdout)["subscriptions"] as? [[String: Any]] ?? []
        #expect(rows.compactMap { $0["status"] as? String } == ["changed"], "\(revived.stdout)")
        #expect(revived.stderr.contains("revived: "), "\(revived.stderr)")
        let listed = try await SubscriptionScenario.subscriptions(podcast)[show.title]
        #expect(listed?["gone"] as? Bool == false)
        #expect(listed?["downloaded"] as? Int == 1, "its downloads are still its own")

        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.mediaRequests == show.paths(3, 4), "only the episode published while it was gone: \(show.mediaRequests)")
    }

    @Test func updateNamingAGoneSubscriptionFetchesItAgain() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        try await goneAndBack(podcast, show, server)

        let plain = try await podcast.run(["update"])
        #expect(plain.status == 0)
        #expect(plain.stderrLines.contains { $0.hasPrefix("warning:") && $0.contains("410") }, "\(plain.stderr)")
        #expect(show.mediaRequests == show.paths(3))

        let named = try await podcast.run(["update", show.title, "--json"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(SubscriptionScenario.feeds(named.stdout)[show.title]?["result"] as? String == "updated", "\(named.stdout)")
        #expect(show.mediaRequests == show.paths(3, 4))
        #expect(try await SubscriptionScenario.subscriptions(podcast)[show.title]?["gone"] as? Bool == false)
    }

    // MARK: catch-up

    @Test func catchUpFetchesFirstSoAnEpisodeAlreadyPublishedIsNotDownloaded() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)
        show.publish()

        let caughtUp = try await podcast.run(["catch-up", "--json"])
        #expect(caughtUp.status == 0, "\(caughtUp.stderr)")
        #expect(SubscriptionScenario.document(caughtUp.stdout)["caught_up"] as? Int == 1, "\(caughtUp.stdout)")
        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.mediaRequests == show.paths(3), "episode 4 was caught up: \(show.mediaRequests)")
    }

    @Test func catchUpSaysWhichFeedFailedAndStillMarksTheOthers() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 2, on: server)
        let broken = ServedShow("Broken Show", slug: "broken", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        try await SubscriptionScenario.subscribe(podcast, to: broken)
        server.setRoute(broken.feedPath, .status(500))
        show.publish()

        let caughtUp = try await podcast.run(["catch-up"])
        #expect(caughtUp.status == 1, "\(caughtUp.stderr)")
        #expect(caughtUp.stderrLines.contains { $0.hasPrefix("error:") && $0.contains(broken.feedURL) }, "\(caughtUp.stderr)")
        #expect(caughtUp.stderrLines.contains("marked 3 new episodes of 2 subscriptions as seen"), "\(caughtUp.stderr)")
        #expect(try await SubscriptionScenario.subscriptions(podcast)[show.title]?["new"] as? Int == 0)
        #expect(try await SubscriptionScenario.subscriptions(podcast)[broken.title]?["new"] as? Int == 0)
    }

    // MARK: subscribe reports every feed

    @Test func aFeedThatFailsDoesNotHideTheOthersSubscribed() async throws {
        let server = try LoopbackServer()
        let one = ServedShow("One Show", slug: "one", episodes: 1, on: server)
        let two = ServedShow("Two Show", slug: "two", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        let text = try await podcast.run(["subscribe", one.feedURL, two.feedURL, "3"])
        #expect(text.status == 1, "\(text.stderr)")
        #expect(text.stderrLines.contains { $0.hasPrefix("subscribed to \"One Show\"") }, "\(text.stderr)")
        #expect(text.stderrLines.contains { $0.hasPrefix("subscribed to \"Two Show\"") }, "\(text.stderr)")
        #expect(text.stderrLines.contains { $0.hasPrefix("error:") && $0.contains("3") }, "\(text.stderr)")
        #expect(text.stderrLines.contains("could not subscribe to 3"), "\(text.stderr)")

        let json = try await podcast.run(["subscribe", one.feedURL, "4", "--json"])
        #expect(json.status == 1, "\(json.stderr)")
        let rows = SubscriptionScenario.document(json.stdout)["subscriptions"] as? [[String: Any]] ?? []
        #expect(rows.compactMap { $0["status"] as? String } == ["exists", "failed"], "\(json.stdout)")
    }

    @Test func aMalformedFeedArgumentSubscribesNothing() async throws {
        let server = try LoopbackServer()
        let one = ServedShow("One Show", slug: "one", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        let result = try await podcast.run(["subscribe", one.feedURL, "ftp://example.com/feed.xml"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(one.feedRequests.isEmpty, "nothing was done")
        #expect(try await SubscriptionScenario.subscriptions(podcast).isEmpty)
    }

    // MARK: --keep

    @Test func aNewKeepSaysHowManyFilesTheNextUpdateMayDelete() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "3"])
        #expect(try await podcast.run(["update"]).status == 0)

        let kept = try await podcast.run(["subscribe", show.feedURL, "--keep", "1"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stderrLines.contains(
            "note: keep 1: the next update may delete 2 files podcast downloaded for \"Loopback Hour\" (the oldest beyond the newest 1)"),
            "\(kept.stderr)")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1, 2, 3), "nothing is deleted now")

        let roomy = try await podcast.run(["subscribe", show.feedURL, "--keep", "5"])
        #expect(roomy.status == 0)
        #expect(!roomy.stderr.contains("note: keep"), "\(roomy.stderr)")
    }

    // MARK: history

    @Test func historyListsEpisodesPodcastDeleted() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "2"])
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(try await podcast.run(["episodes", show.feedURL]).status == 0)
        #expect(try await podcast.run(["delete", "2"]).status == 0)  // Episode 1, the older

        let json = try await podcast.run(["history", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let entries = SubscriptionScenario.document(json.stdout)["downloads"] as? [[String: Any]] ?? []
        let states = Dictionary(entries.map { ($0["title"] as? String ?? "", $0["state"] as? String ?? "") }) { first, _ in first }
        #expect(states == ["Episode 1": "deleted", "Episode 2": "downloaded"], "\(json.stdout)")
        let deleted = entries.first { $0["title"] as? String == "Episode 1" }
        #expect((deleted?["deleted"] as? String)?.hasPrefix(UTCDate.day(Date())) == true, "\(json.stdout)")

        let text = try await podcast.run(["history"], environment: ["COLUMNS": "200"])
        #expect(text.status == 0)
        #expect(text.stdout.split(separator: "\n").contains { $0.contains("deleted") && $0.contains("Episode 1") }, "\(text.stdout)")
    }

    // MARK: resume

    @Test func resumeLeavesEpisodesThatFailedForGoodAndSaysSo() async throws {
        let server = try LoopbackServer()
        let body = ResumeScenario.media(seed: 77, size: 300_000)
        ResumeScenario.serveFeed([
            .init(title: "Missing", path: "/missing.mp3", length: 1000), .init(title: "Kept", path: "/kept.mp3", length: body.count),
        ], on: server)
        server.setRoute("/missing.mp3", .status(404))
        let headers = [("Content-Type", "audio/mpeg"), ("Accept-Ranges", "bytes"), ("ETag", "\"k1\"")]
        server.setRoute("/kept.mp3", .stall(afterBytes: 60_000, body: body, headers: headers))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        _ = try await podcast.interruptedDownload(["all"], once: 60_000)
        server.setRoute("/kept.mp3", .file(body: body, contentType: "audio/mpeg", etag: "\"k1\""))
        // Wait until the 404 is on record too.
        #expect(try await ResumeScenario.wait { ((try? podcast.openStore().downloads.all()) ?? []).contains { $0.finalError } })

        let resumed = try await podcast.run(["resume", "--json"])
        #expect(resumed.status == 0, "only the interrupted episode was attempted: \(resumed.stderr)")
        #expect(ResumeScenario.states(resumed.stdout) == ["Kept": "downloaded"], "\(resumed.stdout)")
        #expect(podcast.finishedBytes(titled: "Kept") == body)
        #expect(resumed.stderrLines.contains { $0.contains("1 episode failed for good") && $0.contains("podcast download") }, "\(resumed.stderr)")
        #expect(server.requestCount(path: "/missing.mp3") == 1, "the 404 was not asked again")
    }
}
