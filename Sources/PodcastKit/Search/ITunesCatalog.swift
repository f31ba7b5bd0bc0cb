import FoundationEssentials

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
            response = try http.get(url, maxBodyBytes: 16 * 1024 * 1024)
        } catch {
            throw SearchError(kind: .http(error), term: query.term)
        }
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
