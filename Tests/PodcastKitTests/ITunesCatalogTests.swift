import Foundation
import PodcastHTTP
import PodcastKit
import PodcastTestSupport
import Testing

@Suite(.timeLimit(.minutes(5))) struct ITunesCatalogTests {
    /// A catalogue pointed at a loopback server; holding it keeps the server running.
    private struct Served {
        let server: LoopbackServer
        let catalog: ITunesCatalog

        init(_ route: ServerRoute) throws {
            server = try LoopbackServer(routes: ["/search": route])
            catalog = ITunesCatalog(baseURL: server.baseURL + "/", http: HTTPClient())
        }

        /// Answers /search with a fixture as the real API sends it.
        init(fixture: String) throws {
            try self.init(.fixed(body: try Fixtures.data(fixture), headers: [("Content-Type", "text/javascript; charset=utf-8")]))
        }

        func search(_ query: SearchQuery) throws -> SearchOutcome {
            try catalog.search(query)
        }
    }

    @Test func podcastSearchNumbersEveryPodcastWithItsFeed() throws {
        let served = try Served(fixture: "own/itunes/search_podcasts_10.txt")
        let outcome = try served.search(SearchQuery(term: "morning"))
        #expect(outcome.results.map(\.number) == Array(1...10))
        #expect(outcome.skippedOtherKinds == 0)
        #expect(outcome.results.allSatisfy { $0.feedURL != nil })
        #expect(outcome.results[0] == SearchResult(
            number: 1, id: 1_702_318_845, name: "Morning Ledger", artist: "Northfield Audio Co.",
            feedURL: "https://feeds.example.com/morning-ledger/rss.xml",
            genre: "News", episodeCount: 23,
            artworkURL: "https://is1-ssl.artwork.example.com/image/thumb/Podcasts126/v4/06/1d/09/061d0927-f465-8e66-d97b-7ec27e6db5b3/mza_27532400360052966.jpg/600x600bb.jpg",
            storeURL: "https://podcasts.example.com/us/podcast/morning-ledger/id1702318845?uo=4",
            releaseDate: "2024-03-14T10:00:00Z"))
        #expect(outcome.results[1].name == "Täglich Nachrichten – Der Morgen")
        #expect(outcome.results[2].name == "朝のニュース５分")
    }

    @Test func requestCarriesEveryQueryParameter() throws {
        let served = try Served(fixture: "own/itunes/search_empty.txt")
        _ = try served.search(SearchQuery(term: "rock & roll", media: .music, country: "gb", limit: 7))
        #expect(served.server.requests.first?.target == "/search?term=rock%20%26%20roll&media=music&entity=song&country=GB&limit=7")
    }

    @Test func limitCutsTheResults() throws {
        let served = try Served(fixture: "own/itunes/search_podcasts_10.txt")
        let outcome = try served.search(SearchQuery(term: "x", limit: 3))
        #expect(outcome.results.map(\.number) == [1, 2, 3])
    }

    @Test func emptyAnswerIsNoResultsNotAnError() throws {
        let served = try Served(fixture: "own/itunes/search_empty.txt")
        let outcome = try served.search(SearchQuery(term: "zzzz"))
        #expect(outcome.results.isEmpty)
    }

    @Test func mixedKindsKeepOnlySongsForMusicAndCountTheRest() throws {
        let served = try Served(fixture: "own/itunes/search_mixed_kinds.json")
        let music = try served.search(SearchQuery(term: "star", media: .music, limit: 200))
        #expect(music.results.count == 24)
        #expect(music.skippedOtherKinds == 26)
        #expect(music.results[0].name == "Starling Hours")
        #expect(music.results[0].artist == "Mara Quell")
        #expect(music.results.allSatisfy { $0.previewURL?.hasSuffix(".m4a") == true && $0.feedURL == nil })

        let podcasts = try served.search(SearchQuery(term: "star", media: .podcast, limit: 200))
        #expect(podcasts.results.isEmpty)
        #expect(podcasts.skippedOtherKinds == 50)
    }

    @Test func lookupAnswerKeepsThePodcastAndSkipsEpisodes() throws {
        let served = try Served(fixture: "own/itunes/lookup_with_episodes.json")
        let outcome = try served.search(SearchQuery(term: "pinguinpraat"))
        #expect(outcome.results.count == 1)
        #expect(outcome.skippedOtherKinds == 2)
        #expect(outcome.results[0].feedURL?.hasPrefix("http") == true)
    }

    @Test func albumsAreNotPodcasts() throws {
        let served = try Served(fixture: "own/itunes/album_search.json")
        let outcome = try served.search(SearchQuery(term: "album"))
        #expect(outcome.results.isEmpty)
        #expect(outcome.skippedOtherKinds == 2)
    }

    @Test func podcastWithoutFeedIsKeptWithANilFeed() throws {
        let body = #"{"resultCount":1,"results":[{"wrapperType":"track","kind":"podcast","collectionId":7,"collectionName":"Exclusive","artistName":"A"}]}"#
        let served = try Served(.fixed(body: Data(body.utf8)))
        let outcome = try served.search(SearchQuery(term: "x"))
        #expect(outcome.results == [SearchResult(number: 1, id: 7, name: "Exclusive", artist: "A")])
    }

    @Test func invalidJSONIsAnInvalidResponse() throws {
        let served = try Served(.fixed(body: Data(#"{"results": [ {"kind": "podcast", "#.utf8)))
        let error = try #require(throws: SearchError.self) { try served.search(SearchQuery(term: "x")) }
        #expect(error.kind == .invalidResponse(url: served.catalog.searchURL(for: SearchQuery(term: "x")), reason: "invalid JSON"))
    }

    @Test func htmlPageIsNamedAsSuch() throws {
        let served = try Served(.fixed(body: Data("<!doctype html><title>Portal</title>".utf8)))
        let error = try #require(throws: SearchError.self) { try served.search(SearchQuery(term: "x")) }
        #expect(error.description.contains("an HTML or XML page instead of JSON"))
    }

    @Test func jsonWithoutResultsIsAnInvalidResponse() throws {
        let served = try Served(.fixed(body: Data(#"{"errorMessage": "Invalid value(s) for key(s): [country]"}"#.utf8)))
        let error = try #require(throws: SearchError.self) { try served.search(SearchQuery(term: "x")) }
        #expect(error.description.contains("JSON without a \"results\" list"))
    }

    @Test func httpFailureNamesTheSearch() throws {
        let served = try Served(.status(503))
        let error = try #require(throws: SearchError.self) { try served.search(SearchQuery(term: "history")) }
        #expect(error.description.hasPrefix("search \"history\": server answered 503 Service Unavailable"))
    }
}
