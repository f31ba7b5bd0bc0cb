import Foundation
import PodcastTestSupport
import Testing

/// Red team of issue 28 (`update` as a pipeline with deadlines), through the built binary: a
/// hostile feed server and a careless user. Each test states what should happen; a failing one
/// is a finding.
@Suite(.timeLimit(.minutes(5))) struct UpdatePipelineRedTeamTests {
    /// Lines of `result`'s stderr that announce a skipped host.
    private static func skipNotices(_ result: ChildProcess.Result) -> [String] {
        result.stderrLines.filter { $0.contains("did not answer twice") }
    }

    /// Two feeds on a live host redirect (302) to a port that refuses connections: the live
    /// host answered both requests (with the redirect), so it must not be counted as down, and
    /// its other feeds (each with a new episode) must be fetched. HostWatch blames the feed's own
    /// host for the redirect target's failure, skips the live host after the two redirects, and
    /// fails three healthy feeds as "host down".
    @Test func feedsRedirectingToADeadHostDoNotGetTheirOwnLiveHostSkipped() async throws {
        let server = try LoopbackServer()
        let refusing = try RefusingPort()
        let shows = (1...5).map { ServedShow("Show \($0)", slug: "show\($0)", episodes: 1, on: server) }
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0"] + shows.map(\.feedURL)).status == 0)

        // Subscriptions are asked in order, two at a time: the first two redirect to the dead port.
        server.setRoute(shows[0].feedPath, .redirect(to: refusing.baseURL + "/moved1.xml"))
        server.setRoute(shows[1].feedPath, .redirect(to: refusing.baseURL + "/moved2.xml"))
        for show in shows[2...] { show.publish(1) }

        let update = try await podcast.run(["update"])
        #expect(update.status == 1, "two feeds did fail: \(update.stderr)")
        #expect(Self.skipNotices(update).isEmpty, "127.0.0.1:\(server.port) answered every request: \(update.stderr)")
        for show in shows[2...] {
            #expect(show.stored(2, in: podcast) == show.episode(2).body, "\(show.title)'s new episode: \(update.stderr)")
        }
        #expect(!update.stderr.contains("host down"), "\(update.stderr)")
    }

    /// A feed that answers 200 with an empty body once (a server hiccup) while its validators
    /// still name the version podcast cached: the update rightly fails it, but it has already
    /// replaced the cached body with the empty answer, while the cache's validators stay those of
    /// the good version. Once the server is well again it answers 304 to those validators, and
    /// every listing of the feed (`episodes <url>`) reads the empty cached body and fails, until
    /// the publisher changes the feed.
    @Test func aBrokenAnswerDoesNotPoisonTheCachedFeedThatA304PointsTo() async throws {
        let server = try LoopbackServer()
        let xml = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Cached Show</title>
            <item><title>Cached Episode</title><guid>cached-1</guid><pubDate>Tue, 10 Nov 2026 08:00:00 GMT</pubDate>
            <enclosure url="\(server.url("/cached/1.mp3"))" length="1000" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8)
        let good = ServerRoute.conditional(body: xml, etag: "\"v1\"", lastModified: "Tue, 10 Nov 2026 08:00:00 GMT")
        server.setRoute("/cached/feed.xml", good)
        let feedURL = server.url("/cached/feed.xml")
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0", feedURL]).status == 0)

        // One empty 200, then the same good version as before.
        server.setRoute("/cached/feed.xml", .sequence([.fixed(body: Data(), headers: [("Content-Type", "application/rss+xml")]), good]))
        let update = try await podcast.run(["update"])
        #expect(update.status == 1, "the empty answer is a failure: \(update.stderr)")

        let listed = try await podcast.run(["episodes", feedURL])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("Cached Episode"), "stdout: \(listed.stdout) stderr: \(listed.stderr)")
    }

    /// Two feeds on one host have a new episode each, served slowly (about ten seconds each) by
    /// the same host; six more feeds live there. The episodes' downloads hold both of the
    /// host's connections (`max-per-host`, CURLMOPT_MAX_HOST_CONNECTIONS, shared by both lanes),
    /// so the feeds asked after them wait in libcurl's queue, where their first-byte timeout is
    /// already counting: they end "no answer", the live host is skipped, and healthy feeds fail.
    /// A feed must not time out (nor get its host skipped) just by waiting its turn.
    @Test func feedsWaitingBehindDownloadsFromTheirHostAreNotTimedOutNorSkipped() async throws {
        let server = try LoopbackServer()
        let shows = (1...8).map { ServedShow("Busy Show \($0)", slug: "busy\($0)", episodes: 1, on: server) }
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0"] + shows.map(\.feedURL)).status == 0)

        // The first two feeds' new episodes drip (12 pieces, 0.8 s apart); the others have news too.
        for show in shows { show.publish(1) }
        for show in shows[..<2] {
            let episode = show.episode(2)
            server.setRoute(episode.path, .slow(
                body: episode.body, chunkSize: 1000, interval: .milliseconds(800), headers: [("Content-Type", "audio/mpeg")]))
        }

        let update = try await podcast.run(["update", "--feed-timeout", "3"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(Self.skipNotices(update).isEmpty, "\(update.stderr)")
        for show in shows {
            #expect(show.stored(2, in: podcast) == show.episode(2).body, "\(show.title): \(update.stderr)")
        }
    }

    /// A feed names a new address in `itunes:new-feed-url` that does not work (404: a typo of
    /// the publisher's, or a host not set up yet), while its own address serves it whole, with a
    /// new episode. The fetch fails as a whole and nothing of the document read is used; worse,
    /// the failed fetch is recorded at the new address, so the subscription now points at the 404
    /// and its working address is forgotten: dead from now on, though its feed is fine. It should
    /// be read where it is, keeping its address, with a warning about the new one (as a refused
    /// move already is).
    @Test func aNewFeedURLThatFailsLeavesTheFeedReadWhereItIs() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Hinted Show", slug: "hinted", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])

        show.publish(1)
        show.move(to: "/nowhere/feed.xml", .newFeedURL)
        server.setRoute("/nowhere/feed.xml", .status(404))

        let update = try await podcast.run(["update"])
        #expect(show.stored(2, in: podcast) == show.episode(2).body, "\(update.stderr)")
        #expect(update.stderr.contains("/nowhere/feed.xml"), "a warning names the address that failed: \(update.stderr)")
        let subscriptions = try await SubscriptionScenario.subscriptions(podcast)
        #expect(subscriptions["Hinted Show"]?["url"] as? String == server.url("/hinted/feed.xml"), "\(subscriptions)")
    }

    /// `--feed-timeout` says it takes "seconds from 1 to 86400", yet `0.0001` (rounded to 0 ms)
    /// is taken: every feed then fails at once with "no answer within 0 ms" (and a first-byte
    /// timeout of 0). It must be refused as a usage error, like 0, 1e9 or nan.
    @Test func aFeedTimeoutThatRoundsToNothingIsRefused() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Any Show", slug: "any", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])
        let requestsBefore = show.feedRequests.count

        let update = try await podcast.run(["update", "--feed-timeout", "0.0001"])
        #expect(update.status == 64, "\(update.stderr)")
        #expect(update.stderr.contains("--feed-timeout"), "\(update.stderr)")
        #expect(!update.stderr.contains("within 0 ms"), "\(update.stderr)")
        #expect(show.feedRequests.count == requestsBefore, "nothing is fetched with a refused option")
    }

    /// The same in the configuration file: `feed-timeout = 0.0001` passes the check "a number of
    /// seconds" and makes every feed fail with "no answer within 0 ms".
    @Test func aConfiguredFeedTimeoutThatRoundsToNothingIsRefused() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Any Show", slug: "any", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])

        try podcast.writeConfiguration("retry-wait = 0.05\nfeed-timeout = 0.0001\n")
        let update = try await podcast.run(["update"])
        #expect(update.status == 64, "\(update.stderr)")
        #expect(update.stderr.contains("feed-timeout"), "\(update.stderr)")
        #expect(!update.stderr.contains("within 0 ms"), "\(update.stderr)")
    }

    /// `feed-timeout = { seconds = 30 }` (a table where a number belongs) is read as a section
    /// `[feed-timeout]` with an unknown key: a warning, and the update runs with the default,
    /// whereas `feed-timeout = "30"` or `[30]` are errors. A setting of the wrong type must be an
    /// error whatever the type.
    @Test func aConfiguredFeedTimeoutThatIsATableIsAnError() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Any Show", slug: "any", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])

        try podcast.writeConfiguration("retry-wait = 0.05\nfeed-timeout = { seconds = 30 }\n")
        let update = try await podcast.run(["update"])
        #expect(update.status == 64, "\(update.stderr)")
        #expect(update.stderr.contains("feed-timeout must be a number of seconds"), "\(update.stderr)")
    }

    /// A paged feed (RFC 5005) whose publisher put out two episodes at once: the newer on page 1,
    /// the other already rolled over to page 2. Page 2 fails once (503) during an update: the
    /// update downloads page 1's episode and warns, but records page 1's validators and digest as
    /// if the whole feed had been read. At the next update page 1 answers 304, so page 2 is never
    /// asked again, and its new episode is never seen nor downloaded, until page 1 changes.
    /// A feed read in part must not be recorded as read in full.
    @Test func aPageThatFailedOnceIsReadAtTheNextUpdate() async throws {
        let server = try LoopbackServer()
        func item(_ number: Int) -> String {
            server.setRoute("/paged/\(number).mp3", .file(
                body: Data(repeating: UInt8(number), count: 3000), contentType: "audio/mpeg", etag: "\"e\(number)\""))
            return """
                <item><title>Paged \(number)</title><guid>paged-\(number)</guid><pubDate>Tue, 0\(number) Nov 2026 08:00:00 GMT</pubDate>
                <enclosure url="\(server.url("/paged/\(number).mp3"))" length="3000" type="audio/mpeg"/></item>
                """
        }
        func page(_ numbers: [Int], next: Bool) -> Data {
            let link = next ? "<atom:link rel=\"next\" href=\"\(server.url("/paged/p2.xml"))\"/>" : ""
            return Data("""
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Paged Show</title>\(link)
                \(numbers.map(item).joined(separator: "\n"))
                </channel></rss>
                """.utf8)
        }
        server.setRoute("/paged/feed.xml", .conditional(body: page([2], next: true), etag: "\"p1-v1\"", lastModified: "Mon, 02 Nov 2026 08:00:00 GMT"))
        server.setRoute("/paged/p2.xml", .fixed(body: page([1], next: false), headers: [("Content-Type", "application/rss+xml")]))
        let feedURL = server.url("/paged/feed.xml")
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0", feedURL]).status == 0)

        // Episodes 3 and 4 at once: 4 on page 1, 3 rolled over to page 2, which fails once.
        server.setRoute("/paged/feed.xml", .conditional(body: page([4], next: true), etag: "\"p1-v2\"", lastModified: "Wed, 04 Nov 2026 08:00:00 GMT"))
        server.setRoute("/paged/p2.xml", .sequence([
            .status(503), .fixed(body: page([3, 2, 1], next: false), headers: [("Content-Type", "application/rss+xml")]),
        ]))
        let first = try await podcast.run(["update"])
        #expect(first.stderr.contains("page 2"), "the first update warns of page 2: \(first.stderr)")
        let pageTwoAsked = server.requestCount(path: "/paged/p2.xml")

        let second = try await podcast.run(["update"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(server.requestCount(path: "/paged/p2.xml") > pageTwoAsked, "page 2 is asked again: \(second.stderr)")
        let folder = podcast.episodesDirectory + "/Paged Show"
        let names = SubscriptionScenario.names(in: folder)
        #expect(names.contains { $0.contains("Paged 4") }, "\(names) \(first.stderr)")
        #expect(names.contains { $0.contains("Paged 3") }, "episode 3 is downloaded once page 2 answers: \(names) \(second.stderr)")
    }
}
