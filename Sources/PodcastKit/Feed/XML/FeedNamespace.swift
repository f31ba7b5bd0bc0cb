/// The XML vocabularies a podcast feed mixes, matched by namespace URI, or by prefix when a
/// feed uses `itunes:` or `podcast:` without declaring it (common in real feeds).
enum FeedNamespace: Sendable, Equatable {
    /// No namespace: RSS 0.9x/2.0 elements.
    case none
    /// RSS 1.0 (RDF Site Summary) and RSS 0.90.
    case rss1
    /// `rdf:RDF`, the RSS 1.0 root.
    case rdf
    /// Atom 1.0 (and Atom 0.3, close enough for what podcasts use).
    case atom
    /// Apple's podcast tags.
    case itunes
    /// Google Play's podcast tags (used as a fallback for author, description, image).
    case googleplay
    /// Media RSS.
    case media
    /// `content:encoded`.
    case content
    /// Dublin Core (`dc:creator`, `dc:date`).
    case dublinCore
    /// Podcasting 2.0.
    case podcast
    /// Podlove Simple Chapters.
    case psc
    /// The `xml:` prefix (`xml:lang`, `xml:base`).
    case xml
    /// Anything else.
    case other

    /// The namespace for a URI as feeds write it (case and a trailing slash vary in the wild).
    init(uri: String) {
        var key = uri.lowercased()
        while key.hasSuffix("/") || key.hasSuffix("#") { key.removeLast() }
        if key.hasPrefix("https://") { key = "http://" + key.dropFirst("https://".count) }
        self = Self.byURI[key] ?? .other
    }

    /// The namespace feeds usually mean by `prefix` when they forget to declare it.
    init(prefix: String) {
        self = Self.byPrefix[prefix.lowercased()] ?? .other
    }

    private static let byURI: [String: FeedNamespace] = [
        // UserLand's and Harvard's RSS namespaces: RSS 0.9x/2.0 elements that some feeds put in one.
        "http://backend.userland.com/rss": .none,
        "http://backend.userland.com/rss2": .none,
        "http://backend.userland.com/rss2.1": .none,
        "http://blogs.law.harvard.edu/tech/rss": .none,
        "http://purl.org/rss/1.0": .rss1,
        "http://my.netscape.com/rdf/simple/0.9": .rss1,
        "http://www.w3.org/1999/02/22-rdf-syntax-ns": .rdf,
        "http://www.w3.org/2005/atom": .atom,
        "http://purl.org/atom/ns": .atom,
        "http://www.itunes.com/dtds/podcast-1.0.dtd": .itunes,
        "http://www.itunes.com/dtds/podcast-1.0": .itunes,
        "http://www.google.com/schemas/play-podcasts/1.0": .googleplay,
        "http://search.yahoo.com/mrss": .media,
        "http://search.yahoo.com/rss": .media,
        "http://purl.org/rss/1.0/modules/content": .content,
        "http://purl.org/dc/elements/1.1": .dublinCore,
        "http://purl.org/dc/terms": .dublinCore,
        "http://podcastindex.org/namespace/1.0": .podcast,
        "http://github.com/podcastindex-org/podcast-namespace/blob/main/docs/1.0.md": .podcast,
        "http://podlove.org/simple-chapters": .psc,
        "http://www.w3.org/xml/1998/namespace": .xml,
    ]

    private static let byPrefix: [String: FeedNamespace] = [
        "itunes": .itunes, "googleplay": .googleplay, "media": .media, "content": .content,
        "dc": .dublinCore, "dcterms": .dublinCore, "podcast": .podcast, "psc": .psc, "atom": .atom,
        "atom10": .atom, "rdf": .rdf, "xml": .xml,
    ]
}
