import FoundationEssentials
import PodcastHTTP
import PodcastPlatform
import PodcastText

/// The Podcast Index (podcastindex.org), an open directory: `GET /api/1.0/search/byterm?q=…`,
/// each request signed with the user's key and secret as its API documentation specifies.
public struct PodcastIndexDirectory: PodcastDirectory {
    public static let info = SearchDirectoryInfo(
        name: "podcastindex", title: "Podcast Index", defaultBaseURL: "https://api.podcastindex.org",
        baseURLVariable: "PODCAST_PODCASTINDEX_URL",
        refusalAdvice: "check podcastindex-key and podcastindex-secret in [search] of the configuration file, "
            + "and the computer's clock (a signature is good for minutes)")

    /// The API base, without a trailing slash; search is at `/api/1.0/search/byterm`.
    public var baseURL: String
    /// The HTTP client requests go through.
    public var http: HTTPClient
    /// The API key, sent as `X-Auth-Key`.
    public var key: String
    /// The API secret: only its signature is sent, never the secret.
    var secret: String
    /// The time each request is signed with; the clock, except in tests.
    var now: @Sendable () -> Date = { Date() }

    /// Needs `podcastindex-key` and `podcastindex-secret`.
    public init(baseURL: String, http: HTTPClient, settings: Settings) throws(DirectorySetupError) {
        let needs = ["podcastindex-key", "podcastindex-secret"]
        let missing = zip(needs, [settings.podcastIndexKey, settings.podcastIndexSecret]).filter { $0.1 == nil }.map(\.0)
        guard let key = settings.podcastIndexKey, let secret = settings.podcastIndexSecret else {
            throw DirectorySetupError(
                directory: Self.info.name, needs: needs, missing: missing, section: .search,
                advice: "get both, free, at https://api.podcastindex.org")
        }
        self.init(baseURL: baseURL, http: http, key: key, secret: secret)
    }

    /// A directory at `baseURL` (trailing slashes are dropped) signing with `key` and `secret`.
    public init(baseURL: String = info.defaultBaseURL, http: HTTPClient = HTTPClient(), key: String, secret: String) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.http = http
        self.key = key
        self.secret = secret
    }

    /// The request URL for `query`.
    public func searchURL(for query: SearchQuery) -> String {
        baseURL + "/api/1.0/search/byterm?" + QueryString.encode([("q", query.term), ("max", String(query.limit))])
    }

    /// The headers that sign a request made at `date`: `X-Auth-Date` is the Unix time in whole
    /// seconds, `Authorization` the lowercase hex SHA-1 of key, secret and that time, one after
    /// the other. The server accepts a signature for a few minutes around its own clock.
    public static func authorizationHeaders(key: String, secret: String, date: Date) -> [String] {
        let seconds = String(Int64(date.timeIntervalSince1970.rounded(.down)))
        return [
            "X-Auth-Key: \(key)",
            "X-Auth-Date: \(seconds)",
            "Authorization: \(SHA1.hex(key + secret + seconds))",
        ]
    }

    public func search(_ query: SearchQuery) throws(SearchError) -> SearchOutcome {
        let request = DirectoryRequest(info: Self.info, http: signingClient, term: query.term)
        let response = try request.get(
            searchURL(for: query), headers: [],
            reason: { response in
                (try? JSONDecoder().decode(PodcastIndexAnswer.self, from: Data(response.body)))?.description
            })
        let answer = try request.decode(PodcastIndexAnswer.self, from: response, shape: "JSON without a \"feeds\" list")
        guard let feeds = answer.feeds else {
            // An answer of `{"status": "false", "description": …}` says why it has no feeds.
            let why = answer.description.map { " (\"\($0.singleLine())\")" } ?? ""
            throw SearchError(
                kind: .invalidResponse(url: response.effectiveURL, reason: "JSON without a \"feeds\" list" + why),
                term: query.term, directory: Self.info)
        }
        let results = feeds.prefix(query.limit).enumerated().map { index, feed in feed.result(number: index + 1) }
        return SearchOutcome(query: query, results: Array(results), directory: Self.info.name)
    }

    /// The client with this request's signature as headers that go to the API's own server only
    /// (never past a redirect to another host, where they would give the key away). The user's
    /// `headers`, scoped to feed hosts, are not sent here.
    private var signingClient: HTTPClient {
        var settings = http.settings
        settings.headers = RequestHeaders(fields: Self.authorizationHeaders(key: key, secret: secret, date: now()))
        return HTTPClient(settings: settings)
    }
}

/// A Podcast Index answer: `{"status": "true", "feeds": [...], "count": 1, "description": "…"}`;
/// an error is `{"status": "false", "description": "…"}`.
struct PodcastIndexAnswer: Decodable {
    var feeds: [PodcastIndexFeed]?
    var description: String?

    private enum CodingKeys: String, CodingKey { case feeds, description }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        feeds = try container.decodeIfPresent([PodcastIndexFeed].self, forKey: .feeds)
        description = container.lenientText(.description)
    }
}

/// One of `feeds[]`, read leniently.
struct PodcastIndexFeed: Decodable {
    var id: Int?
    var title: String?
    var url: String?
    var author: String?
    var ownerName: String?
    var image: String?
    var artwork: String?
    var episodeCount: Int?
    /// Category names by their ids.
    var categories: [String: String]
    /// The newest episode's date, in Unix seconds.
    var newestItemPubdate: Int?

    private enum CodingKeys: String, CodingKey {
        case id, title, url, author, ownerName, image, artwork, episodeCount, categories, newestItemPubdate
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = container.lenientNumber(.id)
        title = container.lenientText(.title)
        url = container.lenientURL(.url)
        author = container.lenientText(.author)
        ownerName = container.lenientText(.ownerName)
        image = container.lenientURL(.image)
        artwork = container.lenientURL(.artwork)
        episodeCount = container.lenientNumber(.episodeCount)
        categories = (try? container.decodeIfPresent([String: String].self, forKey: .categories)) ?? [:]
        newestItemPubdate = container.lenientNumber(.newestItemPubdate)
    }

    /// This feed as result `number`. Its genre is the category with the smallest id (the API
    /// sends them as an object, whose order JSON does not keep), so the same answer always
    /// gives the same genre.
    func result(number: Int) -> SearchResult {
        let genre = categories.compactMap { key, name in Int(key).map { ($0, name.trimmingWhitespace()) } }
            .filter { !$0.1.isEmpty }.min { $0.0 < $1.0 }?.1
        return SearchResult(
            number: number, id: id ?? 0,
            name: title ?? "Untitled podcast",
            artist: author ?? ownerName ?? "",
            feedURL: url,
            genre: genre, episodeCount: episodeCount,
            artworkURL: artwork ?? image,
            storeURL: id.map { "https://podcastindex.org/podcast/\($0)" },
            releaseDate: newestItemPubdate.flatMap { $0 > 0 ? UTCDate.iso8601(Date(timeIntervalSince1970: TimeInterval($0))) : nil })
    }
}
