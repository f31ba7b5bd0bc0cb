import FoundationEssentials
import PodcastHTTP
import PodcastText

/// fyyd (fyyd.de), an open directory that needs no key: `GET /0.2/search/podcast?term=…`.
public struct FyydDirectory: PodcastDirectory {
    public static let info = SearchDirectoryInfo(
        name: "fyyd", title: "fyyd", defaultBaseURL: "https://api.fyyd.de", baseURLVariable: "PODCAST_FYYD_URL",
        refusalAdvice: "try other words, or another --directory")

    /// The API base, without a trailing slash; search is at `/0.2/search/podcast`.
    public var baseURL: String
    /// The HTTP client requests go through.
    public var http: HTTPClient

    /// fyyd needs no setting.
    public init(baseURL: String, http: HTTPClient, settings: Settings) throws(DirectorySetupError) {
        self.init(baseURL: baseURL, http: http)
    }

    /// A directory at `baseURL` (trailing slashes are dropped).
    public init(baseURL: String = info.defaultBaseURL, http: HTTPClient = HTTPClient()) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.http = http
    }

    /// The request URL for `query`: `term` looks in titles, authors and descriptions alike, as
    /// the other directories do.
    public func searchURL(for query: SearchQuery) -> String {
        baseURL + "/0.2/search/podcast?" + QueryString.encode([("term", query.term), ("count", String(query.limit))])
    }

    public func search(_ query: SearchQuery) throws(SearchError) -> SearchOutcome {
        let request = DirectoryRequest(info: Self.info, http: http, term: query.term)
        let response = try request.get(searchURL(for: query), reason: { response in
            (try? JSONDecoder().decode(FyydAnswer.self, from: Data(response.body)))?.msg
        })
        let answer = try request.decode(FyydAnswer.self, from: response, shape: "JSON without a \"data\" list")
        // fyyd answers a search that finds nothing with `"data": null` or no data at all.
        let podcasts = answer.data ?? []
        let results = podcasts.prefix(query.limit).enumerated().map { index, podcast in podcast.result(number: index + 1) }
        return SearchOutcome(query: query, results: Array(results), directory: Self.info.name)
    }
}

/// A fyyd answer: `{"status": 1, "msg": "ok", "meta": {…}, "data": [...]}`; an error has
/// status 0 and says why in `msg`.
struct FyydAnswer: Decodable {
    var data: [FyydPodcast]?
    var msg: String?

    private enum CodingKeys: String, CodingKey { case data, msg }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        data = try container.decodeIfPresent([FyydPodcast].self, forKey: .data)
        msg = container.lenientText(.msg)
    }
}

/// One of `data[]`, read leniently.
struct FyydPodcast: Decodable {
    var id: Int?
    var title: String?
    var author: String?
    var xmlURL: String?
    var imgURL: String?
    var fyydURL: String?
    var episodeCount: Int?
    /// The newest episode's date as fyyd writes it.
    var lastpub: String?

    private enum CodingKeys: String, CodingKey {
        case id, title, author, xmlURL, imgURL, lastpub
        case fyydURL = "url_fyyd"
        case episodeCount = "episode_count"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = container.lenientNumber(.id)
        title = container.lenientText(.title)
        author = container.lenientText(.author)
        xmlURL = container.lenientURL(.xmlURL)
        imgURL = container.lenientURL(.imgURL)
        fyydURL = container.lenientURL(.fyydURL)
        episodeCount = container.lenientNumber(.episodeCount)
        lastpub = container.lenientText(.lastpub)
    }

    /// This podcast as result `number`. fyyd's categories are bare numbers, so there is no genre.
    func result(number: Int) -> SearchResult {
        SearchResult(
            number: number, id: id ?? 0,
            name: title ?? "Untitled podcast",
            artist: author ?? "",
            feedURL: xmlURL,
            episodeCount: episodeCount,
            artworkURL: imgURL,
            storeURL: fyydURL,
            releaseDate: lastpub)
    }
}
