/// Why an OPML file could not be read, naming the file and what to do.
public struct OPMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Equatable {
        /// The file is larger than any subscription list (`OPMLReader.maxBytes`).
        case tooLarge(bytes: Int)
        /// The XML is broken (cut off, tags that do not match, not XML at all), where libxml2 found it.
        case malformed(line: Int, column: Int, message: String)
        /// Well-formed XML whose root element is not `<opml>` (an RSS feed, an HTML page).
        case notOPML(root: String, line: Int, column: Int)
        /// The file declares XML entities, refused as billion-laughs and XXE attacks do.
        case declaresEntities(line: Int, column: Int)
        /// More feeds than any subscription list (`OPMLReader.maxOutlines`).
        case tooManyOutlines
    }

    /// The class of failure.
    public var kind: Kind
    /// The file's name as shown to the user.
    public var source: String

    /// Creates an error.
    public init(_ kind: Kind, source: String) {
        self.kind = kind
        self.source = source
    }

    /// One line: which file, what is wrong with it, what to do.
    public var description: String {
        let file = "OPML file \(source)"
        switch kind {
        case .tooLarge(let bytes):
            return "\(file): \(bytes) bytes is more than a subscription list can be (\(OPMLReader.maxBytes / 1024 / 1024) MiB); "
                + "check that this is the exported OPML file"
        case .malformed(let line, let column, let message):
            return "\(file): broken XML at line \(line):\(column) (\(message)); fix the file or export it again"
        case .notOPML(let root, let line, let column):
            return "\(file): the root element at line \(line):\(column) is <\(root)>, not <opml>; "
                + "export the subscriptions as OPML from your podcast app"
        case .declaresEntities(let line, let column):
            return "\(file): declares XML entities at line \(line):\(column), which are refused for safety; "
                + "export it again from your podcast app"
        case .tooManyOutlines:
            return "\(file): lists more than \(OPMLReader.maxOutlines) feeds; split it into smaller files"
        }
    }
}
