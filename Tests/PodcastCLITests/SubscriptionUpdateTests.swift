import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast subscribe` and `podcast update` through the built binary against loopback feeds: what
/// the baseline downloads, what a later fetch makes new, conditional GET, feeds that move, vanish,
/// fail or rewrite their identities. Each test asserts the exit code, the files on disk and what
/// the server was asked.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionUpdateTests {
    @Test func theFirstUpdateDownloadsOnlyTheNewestFirstEpisodes() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 4, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "2"])
        #expect(show.mediaRequests.isEmpty, "subscribing downloads nothing: \(show.mediaRequests)")

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.mediaRequests.sorted() == show.paths(3, 4).sorted(), "the older two are never requested")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(3, 4))
        #expect(show.stored(3, in: podcast) == show.episode(3).body)
        #expect(show.stored(4, in: podcast) == show.episode(4).body)
        #expect(ResumeScenario.results(update.stdout).map { $0["state"] as? String } == ["downloaded", "downloaded"], "\(update.stdout)")
    }

    @Test func theNextUpdateDownloadsExactlyTheEpisodePublishedSince() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.mediaRequests == show.paths(3))

        show.publish()
        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let feed = SubscriptionScenario.feeds(update.stdout)[show.title]
        #expect(feed?["result"] as? String == "updated", "\(update.stdout)")
        #expect(feed?["new"] as? Int == 1)
        #expect(show.mediaRequests == show.paths(3, 4), "only the new episode is requested")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(3, 4))
        #expect(show.stored(4, in: podcast) == show.episode(4).body)
    }

    /// The update asks with the validators it was given; the server answers 304 and nothing is
    /// downloaded or fetched whole again.
    @Test func anUnchangedFeedIsAnswered304AndNothingIsDownloaded() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)
        let (media, feedRequests, notModified) = (show.mediaRequests, show.feedRequests.count, show.answers.notModified)

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let feed = SubscriptionScenario.feeds(update.stdout)[show.title]
        #expect(feed?["result"] as? String == "unchanged", "\(update.stdout)")
        #expect(feed?["new"] as? Int == 0)
        #expect(ResumeScenario.results(update.stdout).isEmpty)
        #expect(show.mediaRequests == media, "no media request")
        #expect(show.feedRequests.count == feedRequests + 1)
        #expect(show.feedRequests.last?.header("If-None-Match") == "\"hour-v1\"")
        #expect(show.answers.notModified == notModified + 1)
        #expect(show.answers.full == 1, "only subscribe fetched the feed whole")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(3))
    }

    /// A server that sends only Last-Modified is asked with If-Modified-Since, and its 304 means
    /// unchanged just the same.
    @Test func aFeedWithOnlyLastModifiedIsAskedIfModifiedSinceAndAnswered304() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Dated Show", slug: "dated", episodes: 2, on: server)
        show.sendsETag = false
        show.serveFeed()
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)
        let notModified = show.answers.notModified

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.feedRequests.last?.header("If-None-Match") == nil)
        #expect(show.feedRequests.last?.header("If-Modified-Since") == ServedShow.httpDate(Date(timeIntervalSince1970: 1_795_000_002)))
        #expect(show.answers.notModified == notModified + 1)
        #expect(show.answers.full == 1, "only subscribe fetched the feed whole")
        #expect(SubscriptionScenario.feeds(update.stdout)[show.title]?["result"] as? String == "unchanged", "\(update.stdout)")
        #expect(show.mediaRequests == show.paths(2))
    }

    /// `--refresh` asks without validators, so the whole feed comes even when a 304 could; still
    /// nothing is downloaded twice.
    @Test func refreshFetchesTheWholeFeedWithoutValidators() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Refreshed Show", slug: "refreshed", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)
        let full = show.answers.full

        let update = try await podcast.run(["update", "--refresh", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.feedRequests.last?.header("If-None-Match") == nil)
        #expect(show.feedRequests.last?.header("If-Modified-Since") == nil)
        #expect(show.answers.full == full + 1)
        #expect(SubscriptionScenario.feeds(update.stdout)[show.title]?["new"] as? Int == 0, "\(update.stdout)")
        #expect(show.mediaRequests == show.paths(2))
    }

    /// A subscription is named by its number in `subscriptions` (by title), its feed URL or its
    /// exact title; only those named are fetched.
    @Test func updateFetchesOnlyTheSubscriptionsItNames() async throws {
        let server = try LoopbackServer()
        // Listed by title: Alpha 1, Bravo 2, Charlie 3.
        let (charlie, alpha, bravo) = (
            ServedShow("Charlie", slug: "charlie", episodes: 1, on: server), ServedShow("Alpha", slug: "alpha", episodes: 1, on: server),
            ServedShow("Bravo", slug: "bravo", episodes: 1, on: server))
        let shows = [alpha, bravo, charlie]
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0"] + [charlie, alpha, bravo].map(\.feedURL)).status == 0)
        for show in shows { show.publish() }

        for (word, named) in [("Bravo", bravo), ("3", charlie), (alpha.feedURL, alpha)] {
            let before = shows.map(\.feedRequests.count)
            let update = try await podcast.run(["update", word, "--json"])
            #expect(update.status == 0, "\(word): \(update.stderr)")
            #expect(Array(SubscriptionScenario.feeds(update.stdout).keys) == [named.title], "\(word): \(update.stdout)")
            for (show, count) in zip(shows, before) {
                #expect(show.feedRequests.count == count + (show === named ? 1 : 0), "\(word): \(show.title)")
            }
            #expect(named.mediaRequests == named.paths(2), "\(word)")
        }
        let unknown = try await podcast.run(["update", "Zulu"])
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stderrLines.count == 1 && unknown.stderr.hasPrefix("error:"), "\(unknown.stderr)")
    }

    /// Subscribing again to the same feed changes the settings given and nothing else; the
    /// baseline stays.
    @Test func subscribingAgainChangesOnlyTheSettingsGiven() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Resubscribed", slug: "again", episodes: 4, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "2", "--keep", "5"])

        let status = { (options: [String]) async throws -> String? in
            let result = try await podcast.run(["subscribe", show.feedURL, "--json"] + options)
            #expect(result.status == 0, "\(options): \(result.stderr)")
            return (SubscriptionScenario.document(result.stdout)["subscriptions"] as? [[String: Any]])?.first?["status"] as? String
        }
        #expect(try await status(["--keep", "3"]) == "changed")
        var listed = try await SubscriptionScenario.subscriptions(podcast)
        #expect(listed.count == 1)
        #expect(listed[show.title]?["keep"] as? Int == 3)
        #expect(listed[show.title]?["first"] as? Int == 2)
        #expect(listed[show.title]?["new"] as? Int == 2, "the baseline stays")
        #expect(try await status([]) == "exists")
        #expect(try await status(["--keep-all", "--no-download"]) == "changed")
        listed = try await SubscriptionScenario.subscriptions(podcast)
        #expect(listed[show.title]?["keep"] is NSNull, "\(listed)")
        #expect(listed[show.title]?["no_download"] as? Bool == true)
        #expect(listed[show.title]?["new"] as? Int == 2)
        #expect(show.mediaRequests.isEmpty)
    }

    /// Many servers ignore If-None-Match and send the same feed again, even under a new ETag: the
    /// same bytes are unchanged, nothing is downloaded.
    @Test func aServerIgnoringValidatorsThatSendsTheSameBytesIsUnchanged() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Same Bytes", slug: "same", episodes: 2, on: server)
        let body = show.feedXML
        // A new ETag on every answer, whatever the request said (each request has its own index).
        server.setRoute(show.feedPath, .handler { request in
            .fixed(body: body, headers: [("Content-Type", "application/rss+xml"), ("ETag", "\"same-\(request.index)\"")])
        })
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.mediaRequests == show.paths(2))
        let feedRequests = show.feedRequests.count

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.feedRequests.count == feedRequests + 1)
        #expect(show.feedRequests.last?.header("If-None-Match") != nil, "the update asked conditionally")
        let feed = SubscriptionScenario.feeds(update.stdout)[show.title]
        #expect(feed?["result"] as? String == "unchanged", "\(update.stdout)")
        #expect(feed?["new"] as? Int == 0)
        #expect(ResumeScenario.results(update.stdout).isEmpty)
        #expect(show.mediaRequests == show.paths(2))
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(2))
    }

    @Test
    func aFeedMovedBy301KeepsItsDownloadsAndTakesTheNewAddress() async throws {
        try await aMovedFeedKeepsItsDownloadsAndTakesTheNewAddress(.permanentRedirect, note: "redirects permanently")
    }

    @Test
    func aFeedNamingItsNewFeedURLKeepsItsDownloadsAndTakesTheNewAddress() async throws {
        try await aMovedFeedKeepsItsDownloadsAndTakesTheNewAddress(.newFeedURL, note: "itunes:new-feed-url")
    }

    /// The feed moves and gains an episode: the update follows it, says so, downloads only the
    /// new episode, and from then on the subscription lives at the new address, where the old one
    /// also leads.
    private func aMovedFeedKeepsItsDownloadsAndTakesTheNewAddress(_ move: ServedShow.Move, note: String) async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Moving Show", slug: "old", episodes: 2, on: server)
        let oldURL = show.feedURL
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.mediaRequests == show.paths(2))

        show.publish()
        show.move(to: "/new/feed.xml", move)
        let newURL = show.feedURL
        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let feed = SubscriptionScenario.feeds(update.stdout)[show.title]
        #expect(feed?["result"] as? String == "moved", "\(update.stdout)")
        #expect(feed?["url"] as? String == newURL)
        let notes = update.stderrLines.filter { $0.hasPrefix("note:") && $0.contains(note) && $0.contains(newURL) }
        #expect(notes.count == 1, "\(update.stderr)")
        #expect(show.mediaRequests == show.paths(2, 3), "episode 2 is not downloaded again, episode 3 once")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(2, 3))
        #expect(show.stored(3, in: podcast) == show.episode(3).body)

        let subscriptions = try await SubscriptionScenario.subscriptions(podcast)
        #expect(subscriptions.count == 1)
        #expect(subscriptions[show.title]?["url"] as? String == newURL)
        let again = try await podcast.run(["subscribe", oldURL, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let row = (SubscriptionScenario.document(again.stdout)["subscriptions"] as? [[String: Any]])?.first
        #expect(row?["status"] as? String == "exists", "\(again.stdout)")
        #expect(try await SubscriptionScenario.subscriptions(podcast).count == 1)

        // The next update asks the new address only.
        let oldRequests = server.requestCount(path: "/old/feed.xml")
        let next = try await podcast.run(["update", "--json"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(server.requestCount(path: "/old/feed.xml") == oldRequests)
        #expect(SubscriptionScenario.feeds(next.stdout)[show.title]?["result"] as? String == "unchanged", "\(next.stdout)")
        #expect(show.mediaRequests == show.paths(2, 3))

        // What was downloaded under the old address counts as downloaded under the new one.
        let direct = try await podcast.run(["download", newURL, "all", "--json"])
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(ResumeScenario.states(direct.stdout) == ["Episode 1": "downloaded", "Episode 2": "skipped", "Episode 3": "skipped"], "\(direct.stdout)")
        #expect(show.mediaRequests == show.paths(2, 3, 1))
    }

    @Test func aGoneFeedIsMarkedAndNeverRequestedAgain() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Ending Show", slug: "ending", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)

        server.setRoute(show.feedPath, .status(410))
        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "410 Gone is an answer, not a failure: \(update.stderr)")
        let feed = SubscriptionScenario.feeds(update.stdout)[show.title]
        #expect(feed?["result"] as? String == "gone", "\(update.stdout)")
        #expect(update.stderrLines.contains { $0.hasPrefix("warning:") && $0.contains("410") }, "\(update.stderr)")
        #expect(try await SubscriptionScenario.subscriptions(podcast)[show.title]?["gone"] as? Bool == true)
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1), "its files stay")

        let feedRequests = show.feedRequests.count
        let next = try await podcast.run(["update"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(show.feedRequests.count == feedRequests, "a gone feed is not requested again")
        #expect(next.stderrLines.contains { $0.hasPrefix("warning:") && $0.contains(show.feedURL) && $0.contains("skipped") }, "\(next.stderr)")
    }

    @Test func oneFailingFeedAmongFiveLetsTheOtherFourDownload() async throws {
        let server = try LoopbackServer()
        let shows = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"].map { name in
            ServedShow("\(name) Show", slug: name.lowercased(), episodes: 1, on: server)
        }
        let podcast = try SubscriptionScenario.home()
        let subscribed = try await podcast.run(["subscribe", "--first", "0"] + shows.map(\.feedURL))
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        for show in shows { show.publish() }
        let failing = shows[2]
        server.setRoute(failing.feedPath, .status(500))

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 1, "one feed failed: \(update.stderr)")
        let feeds = SubscriptionScenario.feeds(update.stdout)
        #expect(feeds.count == 5, "\(update.stdout)")
        #expect(feeds[failing.title]?["result"] as? String == "failed")
        #expect((feeds[failing.title]?["error"] as? String)?.contains("500") == true, "\(update.stdout)")
        #expect(update.stderrLines.contains { $0.hasPrefix("error:") && $0.contains(failing.title) }, "\(update.stderr)")
        #expect(failing.mediaRequests.isEmpty)
        for show in shows where show !== failing {
            #expect(feeds[show.title]?["result"] as? String == "updated", "\(show.title): \(update.stdout)")
            #expect(show.mediaRequests == show.paths(2), "\(show.title)")
            #expect(show.stored(2, in: podcast) == show.episode(2).body, "\(show.title)")
        }
    }

    /// The feed moved hosts and rewrote every guid, dates unchanged: ten "new" episodes no newer
    /// than what was seen are the churn guard's case, not a back catalogue to download.
    @Test func aFeedThatRewritesEveryGuidDownloadsNothingAndWarns() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Churning Show", slug: "churn", episodes: 10, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show)
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.mediaRequests == show.paths(10))

        show.guidPrefix = "rehosted-"
        show.serveFeed()
        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.mediaRequests == show.paths(10), "nothing of the back catalogue is downloaded")
        #expect(ResumeScenario.results(update.stdout).isEmpty, "\(update.stdout)")
        #expect(SubscriptionScenario.feeds(update.stdout)[show.title]?["new"] as? Int == 0, "\(update.stdout)")
        let warnings = update.stderrLines.filter { $0.hasPrefix("warning:") && $0.contains(show.feedURL) }
        #expect(warnings.count == 1, "\(update.stderr)")
        #expect(try await SubscriptionScenario.subscriptions(podcast)[show.title]?["new"] as? Int == 0)
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(10))

        // The guard holds back only the churn: an episode published after it is new as ever.
        show.publish()
        let next = try await podcast.run(["update"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(show.mediaRequests == show.paths(10, 11))
    }

    /// `--check` says what is new on stdout and touches no media; the update after it downloads
    /// that even though the feed now answers 304 (the check already read the new version).
    @Test func checkListsWhatIsNewAndTheNextUpdateDownloadsItAfterA304() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Checked Show", slug: "checked", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])
        show.publish(2)

        let check = try await podcast.run(["update", "--check"])
        #expect(check.status == 0, "\(check.stderr)")
        let listed = check.stdout.split(separator: "\n").map(String.init)
        #expect(listed.first?.contains(show.title) == true, "\(check.stdout)")
        #expect(listed.filter { $0.contains("Episode 2") || $0.contains("Episode 3") }.count == 2, "\(check.stdout)")
        #expect(!check.stdout.contains("Episode 1"), "\(check.stdout)")
        #expect(show.mediaRequests.isEmpty)
        #expect(show.filesOnDisk(in: podcast).isEmpty)

        let notModified = show.answers.notModified
        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(show.answers.notModified == notModified + 1, "the feed answered 304")
        #expect(show.mediaRequests.sorted() == show.paths(2, 3).sorted())
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(2, 3))
        #expect(ResumeScenario.results(update.stdout).count == 2, "\(update.stdout)")
    }

    @Test func noDownloadMarksNewEpisodesAndDownloadsNone() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Marked Show", slug: "marked", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--no-download"])
        show.publish(2)

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(SubscriptionScenario.feeds(update.stdout)[show.title]?["new"] as? Int == 2, "\(update.stdout)")
        #expect(ResumeScenario.results(update.stdout).isEmpty, "\(update.stdout)")
        #expect(show.mediaRequests.isEmpty)
        #expect(show.filesOnDisk(in: podcast).isEmpty)
        let listed = try await SubscriptionScenario.subscriptions(podcast)[show.title]
        #expect(listed?["new"] as? Int == 3, "the baseline's newest and the two published since: \(String(describing: listed))")
        #expect(listed?["no_download"] as? Bool == true)
        #expect(listed?["downloaded"] as? Int == 0)
    }
}
