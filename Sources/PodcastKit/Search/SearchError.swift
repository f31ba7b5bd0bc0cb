import PodcastHTTP

/// Why a search could not be answered, naming the search and saying what to do.
public struct SearchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Equatable {
        /// The request failed on the network or with an HTTP status.
        case http(HTTPError)
        /// The server answered, but not with the directory's JSON.
        case invalidResponse(url: String, reason: String)
        /// The API refused the query (a 4xx answer), saying why when it did.
        case rejected(url: String, status: Int, reason: String?)
        /// A lookup found nothing usable.
        case notFound(what: String)
    }

    /// The class of failure.
    public var kind: Kind
    /// The search words.
    public var term: String
    /// The directory asked.
    public var directory: SearchDirectoryInfo

    /// Creates an error; `directory` defaults to iTunes, which also answers lookups.
    public init(kind: Kind, term: String, directory: SearchDirectoryInfo = ITunesCatalog.info) {
        self.kind = kind
        self.term = term
        self.directory = directory
    }

    /// One line: what failed, for which search, and what to do.
    public var description: String {
        switch kind {
        case .http(let error) where error.kind == .status(403) || error.kind == .status(429):
            // The iTunes API answers both when a client searches too often; the others, 429.
            let wait = error.retryAfter.map { "wait \($0) s" } ?? "wait a minute"
            return "search \"\(term)\": \(error.detail) for \(error.url); the \(directory.title) API is rate limiting "
                + "requests: \(wait) and try again"
        case .http(let error):
            return "search \"\(term)\": \(error)"
        case .notFound(let what):
            return "\(term): \(what); search with podcast search and use a result's number, or give the feed URL"
        case .rejected(let url, let status, let reason):
            let phrase = HTTPStatus.reasonPhrase(status)
            let answer = ([phrase.isEmpty ? "HTTP \(status)" : "\(status) \(phrase)"] + [reason].compactMap { $0 })
                .joined(separator: ": ")
            return "search \"\(term)\": \(directory.title) refused the query (\(answer)) for \(url); \(directory.refusalAdvice)"
        case .invalidResponse(let url, let reason):
            return "search \"\(term)\": \(reason) from \(url); the \(directory.title) endpoint may be down or "
                + "\(directory.baseURLVariable) may point at the wrong server; try again later"
        }
    }
}
