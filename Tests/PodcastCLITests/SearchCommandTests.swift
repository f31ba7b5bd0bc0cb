import Foundation
import PodcastKit
import PodcastTestSupport
import PodcastText
import Testing

/// `podcast search` through the built binary against a loopback iTunes server.
@Suite(.timeLimit(.minutes(5))) struct SearchCommandTests {
    private static let javascript = [("Content-Type", "text/javascript; charset=utf-8")]

    private func serving(_ fixture: String) throws -> LoopbackServer {
        try LoopbackServer(routes: ["/search": .fixed(body: try Fixtures.data(fixture), headers: Self.javascript)])
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: Results

    @Test func tableNumbersEveryPodcastWithItsFeed() async throws {
        let server = try serving("own/itunes/search_podcasts_10.txt")
        let result = try await PodcastBinary(itunes: server).run(["search", "morning"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 11)
        #expect(lines[0].hasPrefix(" #  Name"))
        #expect(lines[0].hasSuffix("Feed"))
        #expect(lines[1].hasPrefix(" 1  Morning Ledger"))
        #expect(lines[1].hasSuffix("https://feeds.example.com/morning-ledger/rss.xml"))
        #expect(lines[10].hasPrefix("10  "))
        #expect(result.stderr.isEmpty)
    }

    @Test func jsonFollowsTheContract() async throws {
        let server = try serving("own/itunes/search_podcasts_10.txt")
        let result = try await PodcastBinary(itunes: server).run(["search", "--json", "morning"])
        #expect(result.status == 0)
        let document = try json(result.stdout)
        #expect(document["query"] as? String == "morning")
        let results = try #require(document["results"] as? [[String: Any]])
        #expect(results.count == 10)
        #expect(results.map { $0["number"] as? Int } == Array(1...10))
        let keys: Set = ["number", "id", "name", "artist", "feed_url", "genre", "episode_count", "artwork_url", "store_url", "release_date"]
        #expect(results.allSatisfy { Set($0.keys) == keys })
        #expect(results[0]["id"] as? Int == 1_702_318_845)
        #expect(results[0]["name"] as? String == "Morning Ledger")
        #expect(results[0]["episode_count"] as? Int == 23)
        #expect(results[0]["release_date"] as? String == "2024-03-14T10:00:00Z")
    }

    @Test func numbersAreRememberedUntilTheNextSearch() async throws {
        let server = try serving("own/itunes/search_podcasts_10.txt")
        let podcast = try PodcastBinary(itunes: server)
        #expect(try await podcast.run(["search", "--limit", "4", "morning"]).status == 0)
        let store = try StateStore(path: podcast.stateDirectory + "/state.sqlite")
        let remembered = try #require(try store.lastSearch.load())
        #expect(remembered.query == SearchQuery(term: "morning", limit: 4))
        #expect(remembered.results.map(\.number) == [1, 2, 3, 4])
        #expect(try store.lastSearch.result(number: 1)?.name == "Morning Ledger")

        server.setRoute("/search", .fixed(body: try Fixtures.data("own/itunes/search_empty.txt")))
        #expect(try await podcast.run(["search", "nothing"]).status == 0)
        #expect(try store.lastSearch.load()?.results.isEmpty == true)
    }

    @Test func musicSearchListsSongsAndRemembersTheirPreviews() async throws {
        let server = try serving("own/itunes/search_mixed_kinds.json")
        let podcast = try PodcastBinary(itunes: server)
        let result = try await podcast.run(["search", "--media", "music", "--limit", "200", "--json", "star"])
        #expect(result.status == 0)
        let results = try #require(try json(result.stdout)["results"] as? [[String: Any]])
        #expect(results.count == 24)
        #expect(results.allSatisfy { ($0["preview_url"] as? String)?.hasSuffix(".m4a") == true && $0["feed_url"] == nil })
        #expect(result.stderrLines == ["note: 26 results were not songs and are not shown"])

        let listing = try #require(try StateStore(path: podcast.stateDirectory + "/state.sqlite").currentListing.load())
        #expect(listing.source == .previews(term: "star"))
        #expect(listing.items.count == 24)
        #expect(listing.items[0].title == "Mara Quell – Starling Hours")
        #expect(listing.items[0].enclosureURL == results[0]["preview_url"] as? String)
    }

    @Test func podcastWithoutAFeedIsShownAndExplained() async throws {
        let body = #"{"resultCount":2,"results":[{"kind":"podcast","collectionId":1,"collectionName":"Open","artistName":"A","feedUrl":"https://example.com/feed.xml"},{"kind":"podcast","collectionId":2,"collectionName":"Exclusive","artistName":"B"}]}"#
        let server = try LoopbackServer(routes: ["/search": .fixed(body: Data(body.utf8))])
        let podcast = try PodcastBinary(itunes: server)
        let table = try await podcast.run(["search", "x"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("(no public feed)"))
        #expect(table.stderrLines == ["note: no public feed for 2 (Apple-only shows): their episodes cannot be listed"])
        let json = try json(try await podcast.run(["search", "--json", "x"]).stdout)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results[1]["feed_url"] is NSNull)
    }

    @Test func tableFitsTheColumnsItIsGiven() async throws {
        let server = try serving("own/itunes/search_podcasts_10.txt")
        let result = try await PodcastBinary(itunes: server).run(["search", "morning"], environment: ["COLUMNS": "70"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 11)
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 70 })
    }

    @Test func noResultsIsSaidOnceAndSucceeds() async throws {
        let server = try serving("own/itunes/search_empty.txt")
        let result = try await PodcastBinary(itunes: server).run(["search", "zzzz", "qqq"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines == [
            "note: no podcasts found for \"zzzz qqq\" in the US store; try other words or another --country",
        ])
    }

    @Test func countryAndUserAgentComeFromTheConfigurationFile() async throws {
        let server = try serving("own/itunes/search_empty.txt")
        let podcast = try PodcastBinary(itunes: server)
        try "country = \"de\"\nuser-agent = \"tester/2\"\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        #expect(try await podcast.run(["search", "x"]).status == 0)
        let request = try #require(server.requests.first)
        #expect(request.target.contains("country=DE"))
        #expect(request.header("User-Agent") == "tester/2")
    }

    // MARK: Failures: one line on stderr, exit 1

    private func failure(_ route: ServerRoute, config: String? = nil) async throws -> ChildProcess.Result {
        let server = try LoopbackServer(routes: ["/search": route])
        let podcast = try PodcastBinary(itunes: server)
        if let config { try config.write(toFile: podcast.configFile, atomically: true, encoding: .utf8) }
        let result = try await podcast.run(["search", "history"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("error: search \"history\": "))
        return result
    }

    @Test func refusedConnectionSaysToCheckTheServer() async throws {
        let port = try RefusingPort()
        let podcast = try PodcastBinary(environment: ["PODCAST_ITUNES_URL": port.baseURL])
        let result = try await podcast.run(["search", "history"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("error: search \"history\": could not connect"))
        #expect(result.stderr.contains("try again when the server is up"))
    }

    @Test func unknownHostSaysToCheckTheAddress() async throws {
        let podcast = try PodcastBinary(environment: ["PODCAST_ITUNES_URL": "http://no-such-host.invalid"])
        let result = try await podcast.run(["search", "history"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("error: search \"history\": could not resolve the host"))
    }

    @Test func silentServerTimesOut() async throws {
        let result = try await failure(.noResponse, config: "stall-timeout = 1\n")
        #expect(result.stderr.contains("timed out"))
    }

    @Test func rejectedQuerySaysWhatITunesObjectedTo() async throws {
        let body = Data(#"{"errorMessage":"Invalid value(s) for key(s): [country]","queryParameters":{}}"#.utf8)
        let result = try await failure(.fixed(status: 400, body: body, headers: Self.javascript))
        #expect(result.stderr.contains("iTunes refused the query (400 Bad Request: Invalid value(s) for key(s): [country])"))
        #expect(result.stderr.contains("check --country and --media"))
    }

    @Test func missingEndpointIsReported() async throws {
        let result = try await failure(.status(404))
        #expect(result.stderr.contains("iTunes refused the query (404 Not Found)"))
    }

    @Test func emptyAnswerIsNamed() async throws {
        let result = try await failure(.fixed(body: Data("\n\n".utf8)))
        #expect(result.stderr.contains("empty answer"))
    }

    @Test func jsonWithoutResultsIsNamed() async throws {
        let result = try await failure(.fixed(body: Data(#"{"resultCount": 0}"#.utf8)))
        #expect(result.stderr.contains("JSON without a \"results\" list"))
    }

    @Test func rateLimitHonoursRetryAfter() async throws {
        let result = try await failure(.status(429, headers: [("Retry-After", "120")]))
        #expect(result.stderr.contains("the iTunes API is rate limiting requests: wait 120 s and try again"))
    }

    @Test func forbiddenMeansRateLimited() async throws {
        let result = try await failure(.status(403))
        #expect(result.stderr.contains("server answered 403 Forbidden"))
        #expect(result.stderr.contains("wait a minute"))
    }

    @Test func tooManyRequestsMeansWait() async throws {
        let result = try await failure(.status(429))
        #expect(result.stderr.contains("server answered 429 Too Many Requests"))
        #expect(result.stderr.contains("wait a minute"))
    }

    @Test func serverErrorSaysTryLater() async throws {
        let result = try await failure(.status(500))
        #expect(result.stderr.contains("server answered 500 Internal Server Error"))
        #expect(result.stderr.contains("try again later"))
    }

    @Test func invalidJSONIsNamed() async throws {
        let result = try await failure(.fixed(body: Data("{\"resultCount\": 3, \"results\": [".utf8)))
        #expect(result.stderr.contains("invalid JSON"))
    }

    @Test func htmlPageIsNamed() async throws {
        let result = try await failure(.fixed(body: Data("<html><body>Sign in to the Wi-Fi</body></html>".utf8)))
        #expect(result.stderr.contains("an HTML or XML page instead of JSON"))
    }

    // MARK: Bad usage: one line on stderr, exit 64

    @Test(arguments: [
        (["search", "--limit", "0", "x"], "--limit must be between 1 and 200, not 0"),
        (["search", "--limit", "201", "x"], "--limit must be between 1 and 200, not 201"),
        (["search", "--country", "USA", "x"], "--country must be a two-letter store code"),
        (["search", "--media", "video", "x"], "video"),
        (["search", "--frobnicate", "x"], "Unknown option '--frobnicate'"),
        (["search"], "Missing expected argument"),
        (["search", "  "], "the search term is empty"),
        (["fly"], "fly"),
    ])
    func badUsageExits64WithOneLine(arguments: [String], message: String) async throws {
        let server = try LoopbackServer()
        let result = try await PodcastBinary(itunes: server).run(arguments)
        #expect(result.status == 64)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.contains(message))
        #expect(server.requests.isEmpty)
    }

    @Test func nonHTTPEndpointIsBadUsage() async throws {
        let result = try await PodcastBinary(environment: ["PODCAST_ITUNES_URL": "ftp://mirror.example"]).run(["search", "x"])
        #expect(result.status == 64)
        #expect(result.stderrLines == [
            "error: PODCAST_ITUNES_URL is not an http(s) URL: \"ftp://mirror.example\"; set it to a server such as "
                + "http://127.0.0.1:8080, or unset it to use https://itunes.apple.com",
        ])
    }

    @Test func brokenConfigurationNamesFileAndLine() async throws {
        let server = try LoopbackServer()
        let podcast = try PodcastBinary(itunes: server)
        try "country = \"US\"\nstall-timeout = \"forever\"\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        let result = try await podcast.run(["search", "x"])
        #expect(result.status == 64)
        #expect(result.stderrLines == [
            "error: configuration \(podcast.configFile):2: stall-timeout must be a whole number of seconds, 1 or more; "
                + "fix the file or point PODCAST_CONFIG elsewhere",
        ])
    }

    // MARK: Help

    @Test func helpShowsExamplesAndExitsZero() async throws {
        let result = try await PodcastBinary().run(["search", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("podcast search --media music --limit 3 miles davis"))
        #expect(result.stdout.contains("--json"))
    }

}
