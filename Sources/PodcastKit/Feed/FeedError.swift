import PodcastHTTP
import PodcastPlatform

/// Why a feed could not be read, naming the feed and what to do.
public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Equatable {
        /// The body was empty or only white space.
        case empty
        /// An HTML page (a web page, a login or error page) instead of a feed.
        case html
        /// An HTML page read for the feeds it names (`FeedPage`), naming none; `readLimit` is
        /// how much of it was read when it was longer.
        case noFeedOnPage(readLimit: Int?)
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
        /// The server took the request and did not begin to answer in time.
        case noAnswer(Duration)
        /// The feed was not fetched within the feed's deadline (`feed-timeout`).
        case overTime(Duration)
        /// Not asked for: the feed's host did not answer twice in this round of `update`.
        case hostSkipped(host: String)
        /// The feed moved onto another subscription's address; the line says which.
        case movedOntoAnother(String)
        /// The feed cache in podcast's home could not be written.
        case cache(SystemError)
        /// The fetch was stopped (Ctrl-C).
        case interrupted
    }

    /// An error for the failed transfer of feed `source`.
    init(_ failure: FailedTransfer, source: String) {
        switch failure.kind {
        case .http(let error): self.init(.http(error), source: source)
        case .htmlInsteadOfMedia: self.init(.html, source: source)
        case .noAnswer(let wait): self.init(.noAnswer(wait), source: source)
        case .overTime(let limit): self.init(.overTime(limit), source: source)
        case .tooLarge: self.init(.tooLarge(limit: FeedParser.maxBytes), source: source)
        case .local(let error): self.init(.cache(error), source: source)
        case .lengthMismatch(let received, let announced):
            self.init(.http(HTTPError(
                kind: .connectionLost, url: failure.url, detail: "received \(received) of the \(announced) bytes announced",
                advice: "try again")), source: source)
        case .cancelled, .startOver:
            // A feed is fetched whole, never resumed: only a stop cuts it short.
            self.init(.interrupted, source: source)
        }
    }

    /// Why, in a word or two, for the summary of a round of `update`.
    public var cause: String {
        switch kind {
        case .noAnswer, .overTime: return "timed out"
        case .hostSkipped: return "host down"
        case .html, .noFeedOnPage: return "HTML page"
        case .movedOntoAnother: return "moved onto another subscription"
        case .empty, .json, .binary, .notXML, .notAFeed, .malformed, .tooLarge: return "not a feed"
        case .unreadable, .cache: return "local error"
        case .interrupted: return "interrupted"
        case .http(let error):
            switch error.kind {
            case .status(let code): return "HTTP \(code)"
            case .hostNotFound, .cannotConnect, .proxy, .tls: return "unreachable"
            case .timedOut: return "timed out"
            default: return "network error"
            }
        }
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
        case .noFeedOnPage(let limit):
            let part = limit.map { " in its first \($0 / 1024 / 1024) MiB" } ?? ""
            return "feed \(source): this is an HTML page that names no feed (no <link rel=\"alternate\"> of type "
                + "application/rss+xml or application/atom+xml, no <a href> ending in rss, xml or feed\(part)); "
                + "find the podcast's RSS feed and give its address"
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
        case .noAnswer(let wait):
            return "feed \(source): no answer within \(FailedTransfer.words(wait)); the server may be down: try again later"
        case .overTime(let limit):
            return "feed \(source): not fetched within \(FailedTransfer.words(limit)) (feed-timeout); the server is too slow: "
                + "try again later, or raise feed-timeout"
        case .hostSkipped(let host):
            return "feed \(source): not asked for: \(host) did not answer twice in this update; try again later"
        case .movedOntoAnother(let line): return "feed \(source): \(line)"
        case .cache(let error): return "feed \(source): \(error); check the space and permissions of podcast's home"
        case .interrupted: return "feed \(source): interrupted; run the command again"
        }
    }
}
