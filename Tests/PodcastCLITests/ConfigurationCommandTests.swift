import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// The configuration file through the built binary: TOML with sections, errors with their line,
/// commands that keep working with a broken file, `podcast config`, and the HTTP settings it adds.
@Suite(.timeLimit(.minutes(5))) struct ConfigurationCommandTests {
    private static let feed = Data("""
        <?xml version="1.0"?><rss version="2.0"><channel><title>Config Show</title>
        <item><title>One</title><guid>c-1</guid><pubDate>Mon, 09 Nov 2026 08:00:00 GMT</pubDate>
        <enclosure url="/media/one.mp3" length="5000" type="audio/mpeg"/></item>
        </channel></rss>
        """.utf8)

    private static func serve(on server: LoopbackServer) {
        server.setRoute("/feed.xml", .fixed(body: feed))
        server.setRoute("/media/one.mp3", .fixed(body: Data(repeating: 7, count: 5000), headers: [("Content-Type", "audio/mpeg")]))
    }

    @Test func sectionsAreReadAndConfigSaysWhereEachSettingComesFrom() async throws {
        let podcast = try PodcastBinary()
        try "# mine\n[download]\nconcurrency = 5\n\n[http]\nuser-agent = \"mine/1\"\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let result = try await podcast.run(["config", "--limit-rate", "1M"], environment: ["PODCAST_EPISODES_DIR": "/srv/eps"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { String($0).replacing(#/ +#/#, with: " #") }
        #expect(lines.first == "# configuration file: \(podcast.configFile)")
        #expect(lines.contains("concurrency = 5 # \(podcast.configFile):3"))
        #expect(lines.contains("user-agent = \"mine/1\" # \(podcast.configFile):6"))
        #expect(lines.contains("limit-rate = \"1M\" # flag --limit-rate"))
        #expect(lines.contains("max-episode-size = \"16G\" # default"))
        #expect(lines.contains("# proxy: none # default"))
        #expect(lines.contains("episodes-dir = \"/srv/eps\" # environment (PODCAST_EPISODES_DIR)"))
        #expect(lines.contains("stall-timeout = 60 # default"))
        #expect(lines.contains("cookies = true # default"))
    }

    @Test func configsOutputReadsBackAsTheSameSettings() async throws {
        let podcast = try PodcastBinary()
        try "[download]\nlimit-rate = \"1.5M\"\nmax-episode-size = \"500M\"\nretry-wait = 0.5\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let first = try await podcast.run(["config"])
        #expect(first.status == 0, "\(first.stderr)")
        let copy = podcast.home.path("copy.toml")
        try first.stdout.write(toFile: copy, atomically: true, encoding: .utf8)
        let second = try await podcast.run(["config"], environment: ["PODCAST_CONFIG": copy])
        #expect(second.status == 0, "\(second.stderr)")
        let values = { (text: String) in text.split(separator: "\n").dropFirst().map { $0.split(separator: "#").first.map(String.init) ?? "" } }
        #expect(values(second.stdout) == values(first.stdout))
    }

    /// A hostile configuration with an 8 MB value (escapes in it) is read, shown and written back
    /// whole: the other lines are not padded to its width (which made `config` take a minute and
    /// 1.4 GB at 50 MB), and `config`'s output reads back as the same value.
    @Test func anEightMegabyteValueIsShownOnceAndReadsBack() async throws {
        let podcast = try PodcastBinary()
        let value = String(repeating: "agent\\\" ", count: 1_000_000)
        try "[http]\nuser-agent = \"\(value)\"\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let shown = try await podcast.run(["config"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.utf8.count < value.utf8.count + 16_384)
        #expect(shown.stdout.contains("\nstall-timeout = 60  "))
        let copy = podcast.home.path("copy.toml")
        try shown.stdout.write(toFile: copy, atomically: true, encoding: .utf8)
        let json = try await podcast.run(["config", "--json"], environment: ["PODCAST_CONFIG": copy])
        #expect(json.status == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let settings = try #require(document["settings"] as? [[String: Any]])
        #expect(settings.first { $0["key"] as? String == "user-agent" }?["value"] as? String == String(repeating: "agent\" ", count: 1_000_000))
    }

    @Test func configJSONListsEverySetting() async throws {
        let result = try await PodcastBinary().run(["config", "--json"])
        #expect(result.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let settings = try #require(document["settings"] as? [[String: Any]])
        #expect(settings.map { $0["key"] as? String ?? "" }.contains("max-per-host"))
        #expect(settings.allSatisfy { $0["origin"] as? String == "default" })
        #expect(settings.first { $0["key"] as? String == "proxy" }?["value"] is NSNull)
    }

    @Test func aKeyGivenTwiceIsBadUsageNamingTheLine() async throws {
        let podcast = try PodcastBinary()
        try "retries = 3\nretries = 4\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let result = try await podcast.run(["search", "x"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: configuration \(podcast.configFile):2: "), "\(result.stderr)")
    }

    @Test func aMissingFileNamedInPodcastConfigIsAnError() async throws {
        let podcast = try PodcastBinary()
        let missing = podcast.home.path("nowhere.toml")
        let result = try await podcast.run(["search", "x"], environment: ["PODCAST_CONFIG": missing])
        #expect(result.status == 64)
        #expect(result.stderr == "error: configuration \(missing): no such file (PODCAST_CONFIG names it); fix the file or point PODCAST_CONFIG elsewhere\n")
    }

    @Test(arguments: [["status"], ["pause"], ["cancel", "all"], ["history"]])
    func commandsThatReadStateOrStopWorkRunDespiteABrokenFile(arguments: [String]) async throws {
        let podcast = try PodcastBinary()
        try "concurrency = 99\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let result = try await podcast.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.first == "warning: configuration \(podcast.configFile):1: concurrency must be a whole number from 1 to 16; running with the default settings")
    }

    @Test func downloadsStillRefuseABrokenFile() async throws {
        let podcast = try PodcastBinary()
        try "concurrency = 99\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 64)
    }

    @Test func headersFromTheFileAreSentToTheHostsItNames() async throws {
        let server = try LoopbackServer()
        Self.serve(on: server)
        let podcast = try PodcastBinary()
        try "[http]\nheaders = [\"X-Api-Key: from-file\"]\nheader-hosts = [\"127.0.0.1\"]\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        #expect(try await podcast.run(["download", "1"]).status == 0)
        let media = try #require(server.requests.first { $0.path == "/media/one.mp3" })
        #expect(media.header("X-Api-Key") == "from-file")
    }

    @Test func unscopedHeadersFromTheFileGoToDownloadsNotToFeeds() async throws {
        let server = try LoopbackServer()
        Self.serve(on: server)
        let podcast = try PodcastBinary()
        try "headers = [\"X-Api-Key: from-file\"]\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        #expect(try await podcast.run(["download", "1"]).status == 0)
        #expect(server.requests.first { $0.path == "/feed.xml" }?.header("X-Api-Key") == nil)
        #expect(server.requests.first { $0.path == "/media/one.mp3" }?.header("X-Api-Key") == "from-file")
    }

    @Test func aProxyFromTheFileCarriesEveryRequest() async throws {
        let proxy = try LoopbackServer()
        // The name does not resolve: only a proxy can answer for it (the server reduces the
        // proxy's absolute-form target to its path).
        proxy.setRoute("/feed.xml", .fixed(body: Self.feed))
        let podcast = try PodcastBinary()
        try "proxy = \"\(proxy.baseURL)\"\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let result = try await podcast.run(["episodes", "http://podcast.invalid/feed.xml"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(proxy.requests.map { $0.header("Host") } == ["podcast.invalid"])
    }

    @Test func aCookieSetOnARedirectGoesWithTheNextHopAndTheNextDownload() async throws {
        let server = try LoopbackServer()
        Self.serve(on: server)
        // The CDN answers only with the cookie its redirect set.
        let body = Data(repeating: 7, count: 5000)
        server.setRoute("/media/one.mp3", .redirect(to: "/cdn/one.mp3", headers: [("Set-Cookie", "token=abc; Path=/")]))
        server.setRoute("/cdn/one.mp3", .handler { request in
            request.header("Cookie") == "token=abc" ? .fixed(body: body, headers: [("Content-Type", "audio/mpeg")]) : .status(403)
        })
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["download", "1"])
        #expect(result.status == 0, "\(result.stderr)")

        let off = try PodcastBinary()
        try "cookies = false\n".write(toFile: off.configFile, atomically: true, encoding: .utf8)
        #expect(try await off.run(["episodes", server.url("/feed.xml")]).status == 0)
        let refused = try await off.run(["download", "1", "--retries", "1"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("403"), "\(refused.stderr)")
    }

    @Test func maxPerHostIsBadUsageOutOfRange() async throws {
        let result = try await PodcastBinary().run(["download", "1", "--max-per-host", "0"])
        #expect(result.status == 64)
    }

    /// `max-per-host` caps how many requests one server is answering at once, as the server
    /// counts them: from the flag, and from the configuration file's key.
    @Test(arguments: [(["--max-per-host", "1"], "", 1), ([], "max-per-host = 3\n", 3)])
    func maxPerHostCapsTheRequestsOneServerAnswersAtOnce(flags: [String], configuration: String, limit: Int) async throws {
        let server = try LoopbackServer()
        var items: [LibraryScenario.Item] = []
        for number in 1...4 {
            // 0.3 s each: long enough to overlap when the limit lets them.
            let media = ResumeScenario.media(seed: UInt64(number), size: 120_000)
            server.setRoute("/episode\(number).mp3", .slow(
                body: media, chunkSize: 20_000, interval: .milliseconds(50), headers: [("Content-Type", "audio/mpeg")]))
            items.append(LibraryScenario.Item(
                title: "Episode \(number)", guid: "e\(number)", date: "Mon, 0\(number + 1) Nov 2026 08:00:00 GMT",
                enclosure: server.url("/episode\(number).mp3"), length: media.count))
        }
        LibraryScenario.serveFeed(items, on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: configuration)
        let result = try await podcast.run(["download", "all", "--concurrency", "4"] + flags)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.filter { $0.path.hasSuffix(".mp3") }.count == 4)
        // Four downloads of 0.3 s asked for at once: exactly the limit run together.
        #expect(server.peakRequestsInFlight == limit)
    }
}
