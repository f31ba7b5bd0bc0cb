/// What a document's root element says it is.
enum FeedFormat: Sendable, Equatable {
    /// `<rss>`: RSS 0.9x and 2.0.
    case rss
    /// `<rdf:RDF>`: RSS 1.0 and 0.90.
    case rdf
    /// `<feed>` in the Atom namespace.
    case atom

    /// The format whose root element is `name`, or nil when it is not a feed's root.
    init?(root name: XMLName) {
        switch (name.namespace, name.local) {
        case (.none, .rss), (.rss1, .rss): self = .rss
        case (.rdf, .RDF): self = .rdf
        case (.atom, .feed): self = .atom
        default: return nil
        }
    }
}
