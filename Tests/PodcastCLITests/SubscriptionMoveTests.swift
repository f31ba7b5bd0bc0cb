import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast update` through the built binary when one subscription's feed says it moved onto
/// another subscription's address: the move is refused and said, and nothing of the other feed
/// is recorded or downloaded under the subscription that would have moved (issue 27, finding 5).
@Suite(.timeLimit(.minutes(5))) struct SubscriptionMoveTests {
    /// Two shows on one server, both subscribed, each with its newest episode downloaded:
    /// Alpha's episode 2, Bravo's episode 3.
    private static func twoSubscriptions() async throws -> (LoopbackServer, ServedShow, ServedShow, PodcastBinary) {
        let server = try LoopbackServer()
        let alpha = ServedShow("Alpha Show", slug: "alpha", episodes: 2, on: server)
        let bravo = ServedShow("Bravo Show", slug: "bravo", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: alpha)
        try await SubscriptionScenario.subscribe(podcast, to: bravo)
        let first = try await podcast.run(["update"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(alpha.mediaRequests == alpha.paths(2))
        #expect(bravo.mediaRequests == bravo.paths(3))
        return (server, alpha, bravo, podcast)
    }

    /// Alpha's feed as served now, naming `address` in `itunes:new-feed-url`.
    private static func feed(of show: ServedShow, namingNewFeedURL address: String) -> ServerRoute {
        let xml = String(decoding: show.feedXML, as: UTF8.self).replacingOccurrences(
            of: "</link>", with: "</link><itunes:new-feed-url>\(address)</itunes:new-feed-url>")
        return .fixed(body: Data(xml.utf8), headers: [("Content-Type", "application/rss+xml")])
    }

    /// `update --json`, expecting exit `status` and both feeds reported, Alpha's at its own
    /// address with `result` and `new`: the run and Alpha's report.
    private static func update(
        _ podcast: PodcastBinary, alpha: ServedShow, status: Int32, result: String, new: Int
    ) async throws -> (ChildProcess.Result, [String: Any]) {
        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == status, "\(update.stderr)")
        let feeds = SubscriptionScenario.feeds(update.stdout)
        #expect(feeds.count == 2, "\(update.stdout)")
        let report = feeds[alpha.title] ?? [:]
        #expect(report["result"] as? String == result, "\(update.stdout)")
        #expect(report["url"] as? String == alpha.feedURL)
        #expect(report["new"] as? Int == new)
        return (update, report)
    }

    /// Both subscriptions as `subscriptions --json` lists them: still two, each at its own address
    /// with its own title and its own episodes.
    private static func expectBothUnmoved(
        _ podcast: PodcastBinary, alpha: ServedShow, alphaEpisodes: Int, bravo: ServedShow
    ) async throws {
        let listed = try await SubscriptionScenario.subscriptions(podcast)
        #expect(listed.count == 2, "\(listed)")
        #expect(listed[alpha.title]?["url"] as? String == alpha.feedURL, "\(listed)")
        #expect(listed[alpha.title]?["episodes"] as? Int == alphaEpisodes, "nothing of Bravo's feed is Alpha's: \(listed)")
        #expect(listed[bravo.title]?["url"] as? String == bravo.feedURL, "\(listed)")
        #expect(listed[bravo.title]?["episodes"] as? Int == 3, "\(listed)")
    }

    /// Alpha's feed names Bravo's address as its new one and gains an episode: the update reads
    /// Alpha where it is, downloads its new episode, says the move was refused naming both
    /// addresses and Bravo, and leaves Bravo's back catalogue alone.
    @Test func aNewFeedURLOntoAnotherSubscriptionIsRefusedAndTheFeedIsReadWhereItIs() async throws {
        let (server, alpha, bravo, podcast) = try await Self.twoSubscriptions()
        alpha.publish()
        server.setRoute(alpha.feedPath, Self.feed(of: alpha, namingNewFeedURL: bravo.feedURL))

        // Alpha is read, at its own address.
        let (update, _) = try await Self.update(podcast, alpha: alpha, status: 0, result: "updated", new: 1)
        let refusals = update.stderrLines.filter { $0.hasPrefix("warning:") && $0.contains(alpha.feedURL) && $0.contains(bravo.feedURL) }
        #expect(refusals.count == 1, "\(update.stderr)")
        #expect(refusals.first?.contains("\"\(bravo.title)\"") == true, "\(update.stderr)")

        #expect(alpha.mediaRequests == alpha.paths(2, 3), "Alpha's own new episode, once")
        #expect(bravo.mediaRequests == bravo.paths(3), "nothing of Bravo's back catalogue")
        #expect(alpha.filesOnDisk(in: podcast) == alpha.fileNames(2, 3))
        #expect(alpha.stored(3, in: podcast) == alpha.episode(3).body)
        #expect(bravo.filesOnDisk(in: podcast) == bravo.fileNames(3), "no (2) copies")
        try await Self.expectBothUnmoved(podcast, alpha: alpha, alphaEpisodes: 3, bravo: bravo)
    }

    @Test(arguments: [301, 308])
    func aPermanentRedirectOntoAnotherSubscriptionFailsAndRecordsNothingOfIt(status: Int) async throws {
        let (server, alpha, bravo, podcast) = try await Self.twoSubscriptions()
        server.setRoute(alpha.feedPath, .redirect(to: bravo.feedURL, status: status))

        // Alpha could not be read: its address gave another subscription's feed.
        let (update, report) = try await Self.update(podcast, alpha: alpha, status: 1, result: "failed", new: 0)
        let error = report["error"] as? String ?? ""
        #expect(error.contains(alpha.feedURL) && error.contains(bravo.feedURL) && error.contains("\"\(bravo.title)\""), "\(error)")
        #expect(update.stderrLines.contains { $0.hasPrefix("error:") && $0.contains(bravo.feedURL) }, "\(update.stderr)")

        #expect(alpha.mediaRequests == alpha.paths(2))
        #expect(bravo.mediaRequests == bravo.paths(3), "nothing of Bravo's back catalogue")
        #expect(alpha.filesOnDisk(in: podcast) == alpha.fileNames(2))
        #expect(bravo.filesOnDisk(in: podcast) == bravo.fileNames(3), "no (2) copies")
        try await Self.expectBothUnmoved(podcast, alpha: alpha, alphaEpisodes: 2, bravo: bravo)

        // Alpha still lives at its own address: once it serves its feed there again, its news comes.
        alpha.publish()
        let next = try await podcast.run(["update", "--json"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(SubscriptionScenario.feeds(next.stdout)[alpha.title]?["new"] as? Int == 1, "\(next.stdout)")
        #expect(alpha.mediaRequests == alpha.paths(2, 3))
        #expect(alpha.filesOnDisk(in: podcast) == alpha.fileNames(2, 3))
        #expect(bravo.mediaRequests == bravo.paths(3))
    }

    /// A feed that moves to an address no other subscription has is followed as before, even when
    /// another subscription exists.
    @Test func aMoveToAFreeAddressIsStillFollowedBesideAnotherSubscription() async throws {
        let (_, alpha, bravo, podcast) = try await Self.twoSubscriptions()
        alpha.publish()
        alpha.move(to: "/alpha-new/feed.xml", .newFeedURL)

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let feed = SubscriptionScenario.feeds(update.stdout)[alpha.title]
        #expect(feed?["result"] as? String == "moved", "\(update.stdout)")
        #expect(feed?["url"] as? String == alpha.feedURL)
        #expect(!update.stderrLines.contains { $0.hasPrefix("warning:") }, "\(update.stderr)")
        #expect(alpha.mediaRequests == alpha.paths(2, 3))
        #expect(bravo.mediaRequests == bravo.paths(3))
        #expect(try await SubscriptionScenario.subscriptions(podcast)[alpha.title]?["url"] as? String == alpha.feedURL)
    }
}
