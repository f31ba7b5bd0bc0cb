/// Why a search could not be answered, naming the search and saying what to do.
public struct SearchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Equatable {
        /// The request failed on the network or with an HTTP status.
        case http(HTTPError)
        /// The server answered, but not with iTunes Search JSON.
        case invalidResponse(url: String, reason: String)
    }

    /// The class of failure.
    public var kind: Kind
    /// The search words.
    public var term: String

    /// Creates an error.
    public init(kind: Kind, term: String) {
        self.kind = kind
        self.term = term
    }

    /// One line: what failed, for which search, and what to do.
    public var description: String {
        switch kind {
        case .http(let error):
            return "search \"\(term)\": \(error)"
        case .invalidResponse(let url, let reason):
            return "search \"\(term)\": \(reason) from \(url); the iTunes endpoint may be down or "
                + "PODCAST_ITUNES_URL may point at the wrong server; try again later"
        }
    }
}
