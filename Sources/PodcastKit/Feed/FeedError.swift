/// Why a feed could not be read, naming the feed and what to do.
public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Equatable {
        /// The body was empty or only white space.
        case empty
        /// An HTML page (a web page, a login or error page) instead of a feed.
        case html
        /// JSON instead of a feed.
        case json
        /// Binary data instead of a feed.
        case binary
        /// Text that is not XML.
        case notXML
        /// XML whose root element is not `rss`, `rdf:RDF` or Atom `feed`.
        case notAFeed(root: String)
        /// XML broken before any episode could be read.
        case malformed(line: Int, column: Int, message: String)
        /// A document larger than podcast reads (`FeedParser.maxBytes`), with no episode in the part read.
        case tooLarge(limit: Int)
        /// The feed could not be fetched.
        case http(HTTPError)
        /// A local feed file could not be read.
        case unreadable(SystemError)
    }

    /// The class of failure.
    public var kind: Kind
    /// The feed's URL or path, as the user gave it.
    public var source: String

    /// Creates an error.
    public init(_ kind: Kind, source: String) {
        self.kind = kind
        self.source = source
    }

    /// One line: which feed, what is wrong with it, what to do.
    public var description: String {
        let check = "check that the address is the podcast's RSS feed, not its web page"
        switch kind {
        case .empty where !HTTPClient.isHTTP(source):
            return "feed \(source): the file is empty; check the path, or save the feed again"
        case .empty: return "feed \(source): the server sent an empty document; try again later, or \(check)"
        case .html: return "feed \(source): this is an HTML page, not a feed; \(check)"
        case .json: return "feed \(source): this is JSON, not an RSS or Atom feed; \(check)"
        case .binary: return "feed \(source): this is binary data, not a feed; \(check)"
        case .notXML: return "feed \(source): this is not XML; \(check)"
        case .notAFeed(let root): return "feed \(source): XML with root <\(root)>, not an RSS or Atom feed; \(check)"
        case .malformed(let line, let column, let message):
            return "feed \(source): broken XML at line \(line):\(column) (\(message)) before any episode; "
                + "tell the publisher, or try again later if it was cut off"
        case .tooLarge(let limit):
            let size = "\(limit / 1024 / 1024) MiB"
            return "feed \(source) is larger than \(size), and its first \(size) hold no episode; \(check)"
        case .http(let error): return "feed \(source): \(error)"
        case .unreadable(let error): return "feed \(source): \(error); check the path"
        }
    }
}
