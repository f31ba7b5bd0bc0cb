import Foundation
import PodcastHTTP
@testable import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Testing

/// The Podcast Index and fyyd directories: the signature, their answers decoded from fixtures of
/// our own, the requests they make against a loopback stand-in, and the last search keeping the
/// directory its numbers came from.
@Suite(.timeLimit(.minutes(2))) struct SearchDirectoryTests {
    // MARK: The signature

    @Test func sha1MatchesTheStandardVectors() {
        // FIPS 180-2's "abc", the empty message, and the two-block message.
        #expect(SHA1.hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SHA1.hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(SHA1.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func theAuthorizationIsTheSHA1OfKeySecretAndTheWholeSecond() {
        // sha1("ABCxyz1700000000"), computed independently (Python's hashlib).
        let headers = PodcastIndexDirectory.authorizationHeaders(
            key: "ABC", secret: "xyz", date: Date(timeIntervalSince1970: 1_700_000_000.9))
        #expect(headers == [
            "X-Auth-Key: ABC",
            "X-Auth-Date: 1700000000",
            "Authorization: c75a644d8a27f76ef1d73829fc3a4e9a8c09eda3",
        ])
        #expect(!headers.joined().contains("xyz"))
    }

    // MARK: Answers

    @Test func aPodcastIndexAnswerDecodesLeniently() throws {
        let answer = try JSONDecoder().decode(PodcastIndexAnswer.self, from: try Fixtures.data("own/directories/podcastindex_search.json"))
        let feeds = try #require(answer.feeds)
        #expect(feeds.count == 3)
        #expect(feeds[0].result(number: 1) == SearchResult(
            number: 1, id: 920_666, name: "Morning Ledger", artist: "Northfield Audio Co.",
            feedURL: "https://feeds.example.com/morning-ledger/rss.xml",
            genre: "News", episodeCount: 23, artworkURL: "https://img.example.com/ledger.jpg",
            storeURL: "https://podcastindex.org/podcast/920666", releaseDate: "2024-03-14T10:00:00Z"))
        // An empty url is no feed, an empty author gives way to the owner, `[]` categories are none.
        #expect(feeds[1].result(number: 2) == SearchResult(
            number: 2, id: 75075, name: "Radio Ümlaut — 日本", artist: "Umlaut Kollektiv",
            artworkURL: "https://img.example.de/umlaut.png", storeURL: "https://podcastindex.org/podcast/75075"))
        // An id that is no number, a blank title, a URL without a scheme, a count as text.
        let odd = feeds[2].result(number: 3)
        #expect(odd.name == "Untitled podcast")
        #expect(odd.feedURL == nil)
        #expect(odd.episodeCount == 7)
        #expect(odd.storeURL == nil)
    }

    @Test func aFyydAnswerDecodesLeniently() throws {
        let answer = try JSONDecoder().decode(FyydAnswer.self, from: try Fixtures.data("own/directories/fyyd_search.json"))
        let podcasts = try #require(answer.data)
        #expect(answer.msg == "ok")
        #expect(podcasts.map { $0.result(number: 1).name } == ["Chaosfunk Example", "Stille Post"])
        #expect(podcasts[0].result(number: 1) == SearchResult(
            number: 1, id: 1234, name: "Chaosfunk Example", artist: "Chaosfunk e.V.",
            feedURL: "https://feeds.example.de/chaosfunk.xml", episodeCount: 290,
            artworkURL: "https://img.example.de/1234.png",
            storeURL: "https://fyyd.example.de/podcast/chaosfunk-example/0", releaseDate: "2024-03-14T10:00:00+01:00"))
        #expect(podcasts[1].result(number: 2) == SearchResult(
            number: 2, id: 5678, name: "Stille Post", artist: "", episodeCount: 12,
            storeURL: "https://fyyd.example.de/podcast/stille-post/0"))
    }

    // MARK: Requests

    @Test func podcastIndexSignsItsRequestAndNumbersTheFeeds() throws {
        let server = try LoopbackServer(routes: [
            "/api/1.0/search/byterm": .fixed(body: try Fixtures.data("own/directories/podcastindex_search.json")),
        ])
        var directory = PodcastIndexDirectory(baseURL: server.baseURL + "/", key: "ABC", secret: "xyz")
        directory.now = { Date(timeIntervalSince1970: 1_700_000_000) }
        let outcome = try directory.search(SearchQuery(term: "morning ledger", limit: 2))
        #expect(outcome.directory == "podcastindex")
        #expect(outcome.results.map(\.number) == [1, 2])
        #expect(outcome.results.map(\.name) == ["Morning Ledger", "Radio Ümlaut — 日本"])

        let request = try #require(server.requests.first)
        #expect(request.query == "q=morning%20ledger&max=2")
        #expect(request.header("X-Auth-Key") == "ABC")
        #expect(request.header("X-Auth-Date") == "1700000000")
        #expect(request.header("Authorization") == "c75a644d8a27f76ef1d73829fc3a4e9a8c09eda3")
        #expect(!request.target.contains("xyz") && !request.headers.values.contains { $0.contains("xyz") })
    }

    @Test func aRefusedSignatureSaysWhichSettingsToCheck() throws {
        let server = try LoopbackServer(routes: [
            "/api/1.0/search/byterm": .fixed(
                status: 401, body: Data(#"{"status":"false","description":"Authorization header value does not match"}"#.utf8)),
        ])
        let directory = PodcastIndexDirectory(baseURL: server.baseURL, key: "ABC", secret: "wrong")
        let error = try #require(throws: SearchError.self) { try directory.search(SearchQuery(term: "x")) }
        #expect(error.description.hasPrefix(#"search "x": Podcast Index refused the query (401 Unauthorized: Authorization header value does not match) for "#))
        #expect(error.description.contains("check podcastindex-key and podcastindex-secret in [search]"))
        #expect(!error.description.contains("wrong"))
    }

    @Test func aPodcastIndexAnswerWithoutFeedsSaysWhatItSaid() throws {
        let server = try LoopbackServer(routes: [
            "/api/1.0/search/byterm": .fixed(body: Data(#"{"status":"false","description":"Invalid parameters"}"#.utf8)),
        ])
        let directory = PodcastIndexDirectory(baseURL: server.baseURL, key: "ABC", secret: "xyz")
        let error = try #require(throws: SearchError.self) { try directory.search(SearchQuery(term: "x")) }
        #expect(error.description.hasPrefix(#"search "x": JSON without a "feeds" list ("Invalid parameters") from "#))
        #expect(error.description.contains("PODCAST_PODCASTINDEX_URL may point at the wrong server"))
    }

    @Test func fyydIsAskedForTheTermAndAnHTMLPageIsSaidToBeOne() throws {
        let server = try LoopbackServer(routes: [
            "/0.2/search/podcast": .fixed(body: try Fixtures.data("own/directories/fyyd_search.json")),
        ])
        let outcome = try FyydDirectory(baseURL: server.baseURL).search(SearchQuery(term: "chaos funk", limit: 5))
        #expect(outcome.directory == "fyyd")
        #expect(outcome.results.map(\.id) == [1234, 5678])
        #expect(server.requests.first?.query == "term=chaos%20funk&count=5")

        server.setRoute("/0.2/search/podcast", .fixed(body: Data("<html>maintenance</html>".utf8)))
        let error = try #require(throws: SearchError.self) { try FyydDirectory(baseURL: server.baseURL).search(SearchQuery(term: "x")) }
        #expect(error.description == #"search "x": an HTML or XML page instead of JSON from \#(server.baseURL)/0.2/search/podcast?term=x&count=25; "#
            + "the fyyd endpoint may be down or PODCAST_FYYD_URL may point at the wrong server; try again later")
    }

    @Test func fyydFindingNothingIsNoError() throws {
        let server = try LoopbackServer(routes: [
            "/0.2/search/podcast": .fixed(body: Data(#"{"status":1,"msg":"ok","meta":{},"data":[]}"#.utf8)),
        ])
        #expect(try FyydDirectory(baseURL: server.baseURL).search(SearchQuery(term: "nothing")).results.isEmpty)
    }

    // MARK: Setup

    @Test func aMissingKeyNamesTheSettingsAndTheFile() {
        var settings = Settings()
        settings.podcastIndexKey = "ABC"
        let error = #expect(throws: DirectorySetupError.self) {
            try PodcastIndexDirectory(baseURL: "http://127.0.0.1:1", http: HTTPClient(), settings: settings)
        }
        #expect(error?.description(configFile: "/home/u/.config/podcast/config.toml") ==
            "search --directory podcastindex needs podcastindex-key and podcastindex-secret in [search] of "
            + "/home/u/.config/podcast/config.toml (podcastindex-secret is not set); get both, free, at https://api.podcastindex.org")
        #expect(SearchDirectories.names == ["itunes", "podcastindex", "fyyd"])
        #expect(SearchDirectories.named("FYYD")?.info == FyydDirectory.info)
    }

    @Test func aCredentialWithASpaceIsRefusedWithoutBeingRepeated() throws {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.parse("[search]\npodcastindex-secret = \"two words\"\n", path: "c.toml")
        }
        let message = try #require(error).description
        #expect(message.contains("podcastindex-secret"))
        #expect(!message.contains("two words"), "\(message)")
    }

    // MARK: The last search

    @Test func theLastSearchKeepsItsDirectory() throws {
        let directory = try TemporaryDirectory(prefix: "search-directory")
        let store = try StateStore(path: directory.path("state.sqlite"))
        let result = SearchResult(number: 1, id: 1234, name: "Chaosfunk Example", artist: "", feedURL: "https://feeds.example.de/chaosfunk.xml")
        try store.lastSearch.replace(with: SearchOutcome(query: SearchQuery(term: "chaos"), results: [result], directory: "fyyd"))
        let loaded = try #require(try store.lastSearch.load())
        #expect(loaded.directory == "fyyd")
        #expect(loaded.results == [result])
        try store.lastSearch.replace(with: SearchOutcome(query: SearchQuery(term: "apple"), results: []))
        #expect(try store.lastSearch.load()?.directory == "itunes")
    }

    @Test func aSearchStoredBeforeThereWasAChoiceWasAnITunesSearch() throws {
        let directory = try TemporaryDirectory(prefix: "search-directory")
        let path = directory.path("state.sqlite")
        do {
            let store = try StateStore(path: path)
            try store.lastSearch.replace(with: SearchOutcome(query: SearchQuery(term: "old"), results: [], directory: "fyyd"))
            // The file as the version before the column wrote it (later steps find their work done).
            let before = try #require(StateStore.migrations.firstIndex { $0.summary.hasPrefix("which directory the last search asked") })
            try store.connection.execute("ALTER TABLE last_search DROP COLUMN directory; PRAGMA user_version = \(before)")
        }
        let upgraded = try StateStore(path: path)
        #expect(try upgraded.lastSearch.load()?.query.term == "old")
        #expect(try upgraded.lastSearch.load()?.directory == "itunes")
    }
}
