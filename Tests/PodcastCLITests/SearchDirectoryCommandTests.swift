import Foundation
import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Testing

/// `podcast search --directory podcastindex|fyyd` through the built binary against loopback
/// stand-ins: the Podcast Index one checks the signature as the real API does (401 otherwise);
/// `podcast episodes N` then reads the feed the directory gave.
@Suite(.timeLimit(.minutes(5))) struct SearchDirectoryCommandTests {
    private static let key = "PIKEY42"
    private static let secret = "s3cr3t-that-must-not-show^"
    private static let config = "[search]\npodcastindex-key = \"\(key)\"\npodcastindex-secret = \"\(secret)\"\n"

    /// A Podcast Index stand-in that answers two feeds (the first at its own `/feed.xml`, the
    /// second without a feed) only to a request signed with `key` and `secret` less than five
    /// minutes from now, and 401 with the API's JSON to anything else, as the real API does.
    private static func podcastIndex() throws -> LoopbackServer {
        let server = try LoopbackServer(routes: [
            "/feed.xml": .fixed(body: try Fixtures.data("own/feeds/serial-show.xml"), headers: [("Content-Type", "application/rss+xml")]),
        ])
        let feeds = #"{"id":920666,"title":"Tidewater Crossings","url":"\#(server.url("/feed.xml"))","author":"Halvard Lind","episodeCount":9,"#
            + #""categories":{"9":"History"},"newestItemPubdate":1710410400},"#
            + #"{"id":75075,"title":"No Feed Here","url":"","author":"Nobody","categories":[]}"#
        server.setRoute("/api/1.0/search/byterm", .handler { request in
            guard request.header("X-Auth-Key") == key,
                  let date = request.header("X-Auth-Date"), let seconds = Int(date),
                  abs(Date().timeIntervalSince1970 - Double(seconds)) < 300,
                  request.header("Authorization") == SHA1.hex(key + secret + date),
                  request.header("User-Agent")?.hasPrefix("podcast/") == true
            else {
                return .fixed(status: 401, body: Data(#"{"status":"false","description":"Authorization header value does not match"}"#.utf8),
                              headers: [("Content-Type", "application/json")])
            }
            return .fixed(body: Data(#"{"status":"true","feeds":[\#(feeds)],"count":2}"#.utf8), headers: [("Content-Type", "application/json")])
        })
        return server
    }

    private func binary(_ server: LoopbackServer, config: String? = Self.config) throws -> PodcastBinary {
        let podcast = try PodcastBinary(environment: [
            "PODCAST_PODCASTINDEX_URL": server.baseURL, "PODCAST_FYYD_URL": server.baseURL,
            // Apple is never asked: nothing listens on the discard port.
            "PODCAST_ITUNES_URL": "http://127.0.0.1:9", "COLUMNS": "200",
        ])
        if let config { try config.write(toFile: podcast.configFile, atomically: true, encoding: .utf8) }
        return podcast
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: The Podcast Index

    @Test func podcastIndexSearchIsSignedNumberedAndItsNumbersListEpisodes() async throws {
        let signed = try Self.podcastIndex()
        let run = try binary(signed)

        let search = try await run.run(["search", "--directory", "podcastindex", "tide", "water"])
        #expect(search.status == 0, "\(search.stderr)")
        let lines = search.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("#  Name"))
        #expect(lines[1].hasPrefix("1  Tidewater Crossings"))
        #expect(lines[1].contains("History"))
        #expect(lines[1].hasSuffix(signed.url("/feed.xml")))
        #expect(lines[2].hasPrefix("2  No Feed Here"))
        #expect(lines[2].hasSuffix("(no feed)"))
        #expect(search.stderrLines == ["note: no feed for 2 in Podcast Index: their episodes cannot be listed"])
        #expect(signed.requests.first?.query == "q=tide%20water&max=25")

        // Number 1 is the Podcast Index's feed, fetched from where it said.
        let episodes = try await run.run(["episodes", "1"])
        #expect(episodes.status == 0, "\(episodes.stderr)")
        #expect(episodes.stdout.contains("Coming This Spring"))
        #expect(signed.requestCount(path: "/feed.xml") == 1)
        let none = try await run.run(["episodes", "2"])
        #expect(none.status == 64)
        #expect(none.stderrLines == ["error: result 2 (No Feed Here) has no feed in podcastindex; pick another"])

        // The secret is in no output and not in the state store.
        let state = try Data(contentsOf: URL(fileURLWithPath: run.stateDirectory + "/state.sqlite"))
        #expect(state.range(of: Data(Self.secret.utf8)) == nil)
        for output in [search.stdout, search.stderr, episodes.stdout, episodes.stderr] {
            #expect(!output.contains(Self.secret))
        }
    }

    @Test func podcastIndexJSONHasTheShapeOfEverySearch() async throws {
        let server = try Self.podcastIndex()
        let result = try await binary(server).run(["search", "--directory", "podcastindex", "--json", "tide"])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try json(result.stdout)
        #expect(document["query"] as? String == "tide")
        #expect(document["directory"] as? String == "podcastindex")
        let results = try #require(document["results"] as? [[String: Any]])
        let keys: Set = ["number", "id", "name", "artist", "feed_url", "genre", "episode_count", "artwork_url", "store_url", "release_date"]
        #expect(results.allSatisfy { Set($0.keys) == keys })
        #expect(results.map { $0["number"] as? Int } == [1, 2])
        #expect(results[0]["id"] as? Int == 920_666)
        #expect(results[0]["feed_url"] as? String == server.url("/feed.xml"))
        #expect(results[0]["episode_count"] as? Int == 9)
        #expect(results[0]["genre"] as? String == "History")
        #expect(results[0]["store_url"] as? String == "https://podcastindex.org/podcast/920666")
        #expect(results[0]["release_date"] as? String == "2024-03-14T10:00:00Z")
        #expect(results[1]["feed_url"] is NSNull)
    }

    @Test func aWrongSecretIsRefusedInOneLineNamingTheSettings() async throws {
        let server = try Self.podcastIndex()
        let wrong = "[search]\npodcastindex-key = \"\(Self.key)\"\npodcastindex-secret = \"not-the-secret\"\n"
        let result = try await binary(server, config: wrong).run(["search", "--directory", "podcastindex", "tide"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix(#"error: search "tide": Podcast Index refused the query (401 Unauthorized: Authorization header value does not match) for "#))
        #expect(result.stderr.contains("check podcastindex-key and podcastindex-secret in [search]"))
        #expect(!result.stderr.contains("not-the-secret"))
    }

    @Test func aMissingKeyIsAUsageErrorNamingTheSettingsAndTheFile() async throws {
        let server = try Self.podcastIndex()
        let podcast = try binary(server, config: nil)
        let result = try await podcast.run(["search", "--directory", "podcastindex", "tide"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines == [
            "error: search --directory podcastindex needs podcastindex-key and podcastindex-secret in [search] of "
                + "\(podcast.configFile); get both, free, at https://api.podcastindex.org",
        ])
        #expect(server.requests.isEmpty)

        try "[search]\npodcastindex-key = \"\(Self.key)\"\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let half = try await podcast.run(["search", "--directory", "podcastindex", "tide"])
        #expect(half.status == 64)
        #expect(half.stderr.contains("(podcastindex-secret is not set)"))
        #expect(server.requests.isEmpty)
    }

    @Test func configShowsTheKeyAndHidesTheSecret() async throws {
        let server = try Self.podcastIndex()
        let podcast = try binary(server)
        let text = try await podcast.run(["config"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("podcastindex-key = \"\(Self.key)\""))
        #expect(text.stdout.contains("podcastindex-secret = \"***\""))
        let json = try await podcast.run(["config", "--json"])
        #expect(json.status == 0)
        #expect(!(text.stdout + text.stderr + json.stdout + json.stderr).contains(Self.secret))
    }

    // MARK: fyyd

    @Test func fyydSearchNeedsNoKeyAndItsNumbersListEpisodes() async throws {
        let server = try LoopbackServer(routes: [:])
        let body = #"{"status":1,"msg":"ok","meta":{},"data":[{"title":"Tidewater Crossings","id":1234,"xmlURL":"\#(server.url("/feed.xml"))","#
            + #""imgURL":"https://img.example.de/1234.png","url_fyyd":"https://fyyd.example.de/podcast/tidewater/0","author":"Halvard Lind","#
            + #""episode_count":9,"categories":[31]}]}"#
        server.setRoute("/0.2/search/podcast", .fixed(body: Data(body.utf8), headers: [("Content-Type", "application/json")]))
        server.setRoute("/feed.xml", .fixed(body: try Fixtures.data("own/feeds/serial-show.xml"), headers: [("Content-Type", "application/rss+xml")]))
        let podcast = try binary(server, config: nil)

        let search = try await podcast.run(["search", "--directory", "fyyd", "--limit", "3", "tidewater"])
        #expect(search.status == 0, "\(search.stderr)")
        let lines = search.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[1].hasPrefix("1  Tidewater Crossings"))
        #expect(lines[1].hasSuffix(server.url("/feed.xml")))
        let request = try #require(server.requests.first)
        #expect(request.query == "term=tidewater&count=3")
        #expect(request.header("X-Auth-Key") == nil && request.header("Authorization") == nil)

        let json = try self.json(try await podcast.run(["search", "--directory", "fyyd", "--json", "tidewater"]).stdout)
        #expect(json["directory"] as? String == "fyyd")
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results[0]["store_url"] as? String == "https://fyyd.example.de/podcast/tidewater/0")

        let episodes = try await podcast.run(["episodes", "1"])
        #expect(episodes.status == 0, "\(episodes.stderr)")
        #expect(episodes.stdout.contains("Coming This Spring"))
        #expect(server.requestCount(path: "/feed.xml") == 1)
    }

    @Test func fyydFindingNothingSaysSoAndSucceeds() async throws {
        let server = try LoopbackServer(routes: [
            "/0.2/search/podcast": .fixed(body: Data(#"{"status":1,"msg":"ok","meta":{},"data":[]}"#.utf8)),
        ])
        let result = try await binary(server, config: nil).run(["search", "--directory", "fyyd", "zzzz"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines == [#"note: no podcasts found for "zzzz" in fyyd; try other words or another --directory"#])
    }

    // MARK: Usage

    @Test func anUnknownDirectoryOrMusicElsewhereIsBadUsage() async throws {
        let server = try LoopbackServer(routes: [:])
        let podcast = try binary(server, config: nil)
        let unknown = try await podcast.run(["search", "--directory", "gpodder", "x"])
        #expect(unknown.status == 64)
        #expect(unknown.stderrLines == [
            #"error: --directory must be one of itunes, podcastindex, fyyd, not "gpodder"; see 'podcast search --help'"#,
        ])
        let music = try await podcast.run(["search", "--directory", "fyyd", "--media", "music", "x"])
        #expect(music.status == 64)
        #expect(music.stderr.hasPrefix("error: --media music searches iTunes only"))
        let country = try await podcast.run(["search", "--directory", "podcastindex", "--country", "GB", "x"])
        #expect(country.status == 64)
        #expect(country.stderrLines == [
            "error: --country chooses an iTunes store and Podcast Index has none; leave out --country or --directory podcastindex; "
                + "see 'podcast search --help'",
        ])
        let badBase = try await podcast.run(["search", "--directory", "fyyd", "x"], environment: ["PODCAST_FYYD_URL": "ftp://mirror.example"])
        #expect(badBase.status == 64)
        #expect(badBase.stderr.hasPrefix(#"error: PODCAST_FYYD_URL is not an http(s) URL: "ftp://mirror.example""#))
        #expect(server.requests.isEmpty)
    }
}
