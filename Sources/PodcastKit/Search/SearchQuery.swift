/// What a search looks for in the iTunes catalogue.
public enum SearchMedia: String, Sendable, CaseIterable {
    /// Podcasts, each with the feed URL that `podcast episodes` reads.
    case podcast
    /// Songs, each with a 30-second preview that `podcast download` fetches.
    case music
}

/// One iTunes search as the user asked for it.
public struct SearchQuery: Sendable, Equatable {
    /// The search words, joined by single spaces.
    public var term: String
    /// What kind of item to look for.
    public var media: SearchMedia
    /// The two-letter store country, upper case (`US`).
    public var country: String
    /// At most this many results (1–200).
    public var limit: Int

    /// The contract's default number of results.
    public static let defaultLimit = 25
    /// The largest number of results the iTunes API returns.
    public static let limitRange = 1...200

    /// True for a two-letter ASCII store code such as `US` or `gb`.
    public static func isValidCountry(_ code: String) -> Bool {
        code.utf8.count == 2 && code.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }
    }

    /// Creates a query; `term` words are joined with spaces and `country` is upper-cased.
    public init(term: String, media: SearchMedia = .podcast, country: String = "US", limit: Int = defaultLimit) {
        self.term = term
        self.media = media
        self.country = country.uppercased()
        self.limit = limit
    }
}
