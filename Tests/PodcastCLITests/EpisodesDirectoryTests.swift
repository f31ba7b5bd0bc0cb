import Foundation
import PodcastTestSupport
import Testing

/// An Episodes directory podcast cannot use is one line naming it, the setting that chose it and
/// where that was set, and what to do; never a bare system call's error.
@Suite(.timeLimit(.minutes(5))) struct EpisodesDirectoryTests {
    private static let feed = """
        <rss><channel><title>Local Show</title>
        <item><title>Only</title><guid>l-1</guid><enclosure url="http://127.0.0.1:9/only.mp3" length="10" type="audio/mpeg"/></item>
        </channel></rss>
        """

    /// A home with the feed file above, and a regular file `blocker` in it: a directory under a
    /// file cannot be made (ENOTDIR), whoever runs the test, root included.
    private func home() throws -> (podcast: PodcastBinary, feed: String, blocker: String) {
        let podcast = try PodcastBinary()
        let feed = podcast.home.path("feed.xml")
        try Self.feed.write(toFile: feed, atomically: true, encoding: .utf8)
        let blocker = podcast.home.path("blocker")
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: blocker))
        return (podcast, feed, blocker)
    }

    private static func message(_ directory: String, setBy origin: String, at path: String? = nil) -> String {
        "error: cannot use the Episodes directory \(directory) (episodes-dir, set by \(origin)): Not a directory"
            + (path.map { " at \($0)" } ?? "")
            + "; choose another with --episodes-dir, PODCAST_EPISODES_DIR or episodes-dir in the configuration file\n"
    }

    @Test func anEpisodesDirOptionUnderAFileNamesTheOption() async throws {
        let (podcast, feed, blocker) = try home()
        let result = try await podcast.run(["download", feed, "--episodes-dir", blocker + "/sub"])
        #expect(result.status == 1)
        #expect(result.stderr == Self.message(blocker + "/sub", setBy: "flag --episodes-dir"))
    }

    @Test func theEnvironmentsEpisodesDirectoryNamesTheVariable() async throws {
        let (podcast, feed, blocker) = try home()
        let result = try await podcast.run(["download", feed], environment: ["PODCAST_EPISODES_DIR": blocker])
        #expect(result.status == 1)
        #expect(result.stderr == Self.message(blocker, setBy: "environment (PODCAST_EPISODES_DIR)"))
    }

    @Test func updateNamesTheConfigurationLineAndTheFileInTheWay() async throws {
        let (podcast, _, blocker) = try home()
        try "episodes-dir = \"\(blocker)/a/b\"\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let opml = podcast.home.path("subscriptions.opml")
        try #"<opml version="2.0"><body><outline text="Far" xmlUrl="http://127.0.0.1:9/feed.xml"/></body></opml>"#
            .write(toFile: opml, atomically: true, encoding: .utf8)
        #expect(try await podcast.run(["import", opml]).status == 0)
        let result = try await podcast.run(["update"])
        #expect(result.status == 1)
        #expect(result.stderr == Self.message(blocker + "/a/b", setBy: podcast.configFile + ":1", at: blocker + "/a"))
    }

    @Test func aSubscriptionsOwnDirectorySaysHowToChangeIt() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Own Place", slug: "ownplace", episodes: 1, on: server)
        let (podcast, _, blocker) = try home()
        let subscribed = try await podcast.run(["subscribe", show.feedURL, "--first", "1", "--episodes-dir", blocker + "/sub"])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        let result = try await podcast.run(["update"])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("cannot use the subscription's own Episodes directory \(blocker)/sub: Not a directory; "
                + "choose another with podcast subscribe \(show.feedURL) --episodes-dir <directory>"), "\(result.stderr)")
    }
}
