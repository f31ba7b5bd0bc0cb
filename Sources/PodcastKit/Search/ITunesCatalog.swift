import FoundationEssentials
import PodcastHTTP
import PodcastText

/// The iTunes Search API: finds podcasts (with their feeds) and songs (with previews).
public struct ITunesCatalog: Sendable {
    /// The real API's base URL; `PODCAST_ITUNES_URL` replaces it.
    public static let defaultBaseURL = "https://itunes.apple.com"

    /// The API base, without a trailing slash; search is at `/search`.
    public var baseURL: String
    /// The HTTP client requests go through.
    public var http: HTTPClient

    /// A catalogue at `baseURL` (trailing slashes are dropped).
    public init(baseURL: String = defaultBaseURL, http: HTTPClient = HTTPClient()) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.http = http
    }

    /// The request URL for `query`.
    public func searchURL(for query: SearchQuery) -> String {
        let entity = query.media == .podcast ? "podcast" : "song"
        return baseURL + "/search?" + QueryString.encode([
            ("term", query.term), ("media", query.media.rawValue), ("entity", entity),
            ("country", query.country), ("limit", String(query.limit)),
        ])
    }

    /// Runs `query` and numbers the results of the kind asked for from 1, in iTunes's order.
    /// Items of other kinds are dropped and counted in `skippedOtherKinds`.
    public func search(_ query: SearchQuery) throws(SearchError) -> SearchOutcome {
        let url = searchURL(for: query)
        let response: HTTPResponse
        do {
            // 4xx answers are taken so their body can say what was wrong with the query.
            response = try http.get(url, accepting: 200...499, maxBodyBytes: 16 * 1024 * 1024)
        } catch {
            throw SearchError(kind: .http(error), term: query.term)
        }
        try checkStatus(of: response, term: query.term)
        let items = try decode(response, term: query.term)
        var results: [SearchResult] = []
        var skipped = 0
        for item in items {
            let number = results.count + 1
            let result = query.media == .podcast ? item.podcast(number: number) : item.song(number: number)
            if let result {
                if results.count < query.limit { results.append(result) }
            } else {
                skipped += 1
            }
        }
        return SearchOutcome(query: query, results: results, skippedOtherKinds: skipped)
    }

    /// The feed URL of the podcast with iTunes id `id`, from the lookup endpoint; `link` is
    /// what the user gave when it was a link carrying the id, for errors to name.
    public func feedURL(ofPodcast id: Int, link: String? = nil) throws(SearchError) -> String {
        let term = link ?? "itunes:\(id)"
        let url = baseURL + "/lookup?" + QueryString.encode([("id", String(id)), ("entity", "podcast")])
        let response: HTTPResponse
        do {
            response = try http.get(url, accepting: 200...499, maxBodyBytes: 4 * 1024 * 1024)
        } catch {
            throw SearchError(kind: .http(error), term: term)
        }
        try checkStatus(of: response, term: term)
        let podcast = try decode(response, term: term).lazy.compactMap { $0.podcast(number: 1) }.first
        guard let podcast else {
            throw SearchError(kind: .notFound(what: "no podcast with iTunes id \(id)"), term: term)
        }
        guard let feed = podcast.feedURL else {
            throw SearchError(kind: .notFound(what: "\(podcast.name) has no public feed (an Apple-only show)"), term: term)
        }
        return feed
    }

    private func checkStatus(of response: HTTPResponse, term: String) throws(SearchError) {
        let status = response.status
        guard !(200...299).contains(status) else { return }
        if status == 403 || status == 429 {
            let retryAfter = response.header("retry-after").flatMap { Int($0.trimmingWhitespace()) }
            throw SearchError(kind: .http(.status(status, url: response.effectiveURL, retryAfter: retryAfter)), term: term)
        }
        let reason = (try? JSONDecoder().decode(ITunesErrorAnswer.self, from: Data(response.body)))?.errorMessage
        throw SearchError(kind: .rejected(url: response.effectiveURL, status: status, reason: reason?.singleLine()), term: term)
    }

    private func decode(_ response: HTTPResponse, term: String) throws(SearchError) -> [ITunesItem] {
        func invalid(_ reason: String) -> SearchError {
            SearchError(kind: .invalidResponse(url: response.effectiveURL, reason: reason), term: term)
        }
        let firstByte = response.body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard let firstByte else { throw invalid("empty answer") }
        if firstByte == UInt8(ascii: "<") {
            throw invalid("an HTML or XML page instead of JSON")
        }
        do {
            return try JSONDecoder().decode(ITunesSearchResponse.self, from: Data(response.body)).results
        } catch DecodingError.keyNotFound, DecodingError.typeMismatch, DecodingError.valueNotFound {
            throw invalid("JSON without a \"results\" list")
        } catch {
            throw invalid("invalid JSON")
        }
    }
}
