/// What the user named as a feed: `podcast episodes <feed>`.
public enum FeedSource: Sendable, Equatable {
    /// An http(s) URL.
    case url(String)
    /// A file on this machine.
    case file(String)
    /// A number from the last search.
    case searchResult(Int)
    /// `itunes:<id>`, resolved through the lookup endpoint.
    case itunes(id: Int)

    /// Reads the argument: a URL, `itunes:<id>`, a number, else a file path.
    public init(argument: String) {
        let trimmed = argument.trimmingWhitespace()
        if HTTPClient.isHTTP(trimmed) {
            self = .url(trimmed)
        } else if trimmed.lowercased().hasPrefix("itunes:"), let id = Int(trimmed.dropFirst("itunes:".count)), id > 0 {
            self = .itunes(id: id)
        } else if let number = Int(trimmed), number >= 0, !trimmed.contains("/") {
            self = .searchResult(number)
        } else {
            self = .file(argument)
        }
    }
}
