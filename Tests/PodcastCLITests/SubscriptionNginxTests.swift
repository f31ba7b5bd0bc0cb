import Foundation
import PodcastTestSupport
import Testing

/// `podcast update` against a real nginx, which makes its own ETag and Last-Modified from the
/// file and answers conditional requests itself.
@Suite(.enabled(if: NginxServer.isAvailable, "nginx is not installed (make setup installs nginx-light)"), .timeLimit(.minutes(5)))
struct SubscriptionNginxTests {
    /// The feed of `count` episodes on `nginx`, newest first; episode n at `/media/n.mp3`.
    private func feed(_ count: Int, bodies: [Data]) -> Data {
        let items = (1...count).reversed().map { number in
            """
            <item><title>Episode \(number)</title><guid>nginx-\(number)</guid>
            <pubDate>\(SubscriptionNginxTests.date(number))</pubDate>
            <enclosure url="/media/\(number).mp3" length="\(bodies[number - 1].count)" type="audio/mpeg"/></item>
            """
        }
        return Data("<rss><channel><title>Nginx Show</title>\(items.joined())</channel></rss>".utf8)
    }

    private static func date(_ number: Int) -> String {
        "Mon, 0\(number) Nov 2026 08:00:00 GMT"
    }

    /// The access log once it holds `count` answers (nginx writes a line when an answer ends).
    private func log(_ nginx: NginxServer, count: Int) async throws -> [NginxLogEntry] {
        _ = try await ResumeScenario.wait(upTo: .seconds(10)) { nginx.accessLog().count >= count }
        return nginx.accessLog()
    }

    @Test func anUnchangedFeedOnNginxIsAnswered304AndANewEpisodeIsDownloadedOnce() async throws {
        let nginx = try await NginxServer()
        let bodies = (1...3).map { ResumeScenario.media(seed: UInt64(300 + $0), size: 30_000) }
        for (index, body) in bodies.enumerated() { try nginx.serve(body, at: "/media/\(index + 1).mp3") }
        try nginx.serve(feed(2, bodies: bodies), at: "/feed.xml")
        let podcast = try SubscriptionScenario.home()
        let folder = podcast.episodesDirectory + "/Nginx Show"

        #expect(try await podcast.run(["subscribe", nginx.url("/feed.xml")]).status == 0)
        let first = try await podcast.run(["update"])
        #expect(first.status == 0, "\(first.stderr)")
        let unchanged = try await podcast.run(["update", "--json"])
        #expect(unchanged.status == 0, "\(unchanged.stderr)")
        #expect(SubscriptionScenario.feeds(unchanged.stdout)["Nginx Show"]?["result"] as? String == "unchanged", "\(unchanged.stdout)")
        var entries = try await log(nginx, count: 4)
        #expect(entries.map(\.status) == [200, 304, 200, 304], "subscribe, update, its episode, update: \(entries)")
        #expect(entries.map(\.target) == ["/feed.xml", "/feed.xml", "/media/2.mp3", "/feed.xml"], "\(entries)")
        #expect(SubscriptionScenario.names(in: folder) == ["2026-11-02 Episode 2.mp3"])

        // The feed changes (a new size, so a new ETag even within the same second).
        try nginx.serve(feed(3, bodies: bodies), at: "/feed.xml")
        let gained = try await podcast.run(["update", "--json"])
        #expect(gained.status == 0, "\(gained.stderr)")
        #expect(SubscriptionScenario.feeds(gained.stdout)["Nginx Show"]?["result"] as? String == "updated", "\(gained.stdout)")
        let again = try await podcast.run(["update", "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(SubscriptionScenario.feeds(again.stdout)["Nginx Show"]?["result"] as? String == "unchanged", "\(again.stdout)")
        entries = try await log(nginx, count: 7)
        await nginx.stop()
        #expect(entries.dropFirst(4).map(\.status) == [200, 200, 304], "\(entries)")
        #expect(entries.dropFirst(4).map(\.target) == ["/feed.xml", "/media/3.mp3", "/feed.xml"], "\(entries)")
        #expect(SubscriptionScenario.names(in: folder) == ["2026-11-02 Episode 2.mp3", "2026-11-03 Episode 3.mp3"])
        #expect(SubscriptionScenario.contents(folder + "/2026-11-03 Episode 3.mp3") == bodies[2])
    }
}
