import PodcastHTTP
import PodcastText

/// Which feed a web address names when it is a podcast's page rather than its feed: the one home
/// of that decision, pure so that it is tested without a server. An Apple Podcasts or Overcast
/// link carries the show's Apple id, so it is looked up (`appleID`) and never fetched; any other
/// page names its feeds in its links (`choose`), read from it by `HTMLPageLinks`.
public enum FeedLink {
    /// A link read from a web page, as written there.
    public struct PageLink: Sendable, Equatable {
        /// Where a link stands on a page.
        public enum Element: Sendable, Equatable {
            /// `<link rel="…" type="…">` (in the head).
            case link(rel: String, type: String)
            /// `<a href>`.
            case anchor
            /// `<base href>`: what the page's relative links are relative to.
            case base
        }

        /// The kind of element.
        public var element: Element
        /// Its `href`, as written.
        public var href: String
        /// Its `title` attribute (a `<link>`'s) or its text (an `<a>`'s), when there is one.
        public var title: String?

        /// A link of `element` to `href`.
        public init(_ element: Element, href: String, title: String? = nil) {
            self.element = element
            self.href = href
            self.title = title
        }
    }

    /// The feeds a page names, most likely first.
    public struct Found: Sendable, Equatable {
        /// Where they were found.
        public enum Origin: Sendable, Equatable {
            /// `<link rel="alternate" type="application/rss+xml">` (or Atom).
            case alternate
            /// `<a href>`s whose path ends in rss, xml or feed (the page has no alternate feed).
            case anchor
        }

        /// Their absolute URLs, in the page's order, each once.
        public var feeds: [String]
        /// The one to read: the first that looks like a podcast's (`rank`).
        public var chosen: String
        /// Where they were found.
        public var origin: Origin
    }

    /// The types of `<link rel="alternate">` that name a feed (parameters such as `; charset=`
    /// dropped first). `application/x-rss+xml` and RSS 1.0's RDF appear on real sites too.
    static let feedTypes: Set<String> = ["application/rss+xml", "application/atom+xml", "application/x-rss+xml", "application/rdf+xml"]

    /// The Apple Podcasts id of `url` when it is an Apple Podcasts link
    /// (`podcasts.apple.com/us/podcast/name/id1200361736`, also on `itunes.apple.com`, with or
    /// without `?i=` naming an episode) or an Overcast one (`overcast.fm/itunes1200361736/name`);
    /// nil for any other address. These pages are built by scripts or behind consent walls, so
    /// reading them finds no feed; the id finds it through the iTunes lookup.
    public static func appleID(in url: String) -> Int? {
        guard let parts = URLParts(url), parts.scheme == "http" || parts.scheme == "https" else { return nil }
        var host = String(parts.host.prefix { $0 != ":" })
        if host.hasPrefix("www.") { host.removeFirst(4) }
        let segments = parts.path.split(separator: "/")
        switch host {
        case "podcasts.apple.com", "itunes.apple.com":
            // The id is its own segment (`id123`); the old iTunes store also wrote `?id=123`.
            if let id = segments.lazy.compactMap({ number(after: "id", in: $0) }).last { return id }
            return parts.query.flatMap { query in
                query.split(separator: "&").lazy.compactMap { pair in pair.hasPrefix("id=") ? positive(pair.dropFirst(3)) : nil }.first
            }
        case "overcast.fm":
            return segments.first.flatMap { number(after: "itunes", in: $0) }
        default:
            return nil
        }
    }

    /// The feeds `links` (read from the page at `pageURL`) name, made absolute against the page's
    /// `<base href>` or else its address; nil when they name none. Alternate links come first; a
    /// page with none is searched for `<a href>`s ending in rss, xml or feed (`looksLikeFeedAnchor`).
    /// A link back to the page itself, or to anything but http(s), is no feed.
    public static func choose(from links: [PageLink], pageURL: String) -> Found? {
        let base = links.first { $0.element == .base }.flatMap { URLResolver(documentURL: pageURL).resolve($0.href) } ?? pageURL
        let resolver = URLResolver(documentURL: base)
        let page = FeedAddress.normalized(pageURL)
        func feeds(_ keep: (PageLink) -> Bool) -> [(url: String, title: String?)] {
            var seen: Set<String> = []
            var found: [(url: String, title: String?)] = []
            for link in links where keep(link) {
                guard let url = resolver.resolve(link.href), HTTPClient.isHTTP(url) else { continue }
                let normalized = FeedAddress.normalized(url)
                guard normalized != page, seen.insert(normalized).inserted else { continue }
                found.append((normalized, link.title))
            }
            return found
        }
        let alternates = feeds(isAlternateFeed)
        if !alternates.isEmpty { return Found(feeds: alternates.map(\.url), chosen: rank(alternates), origin: .alternate) }
        let anchors = feeds { $0.element == .anchor && looksLikeFeedAnchor($0.href) }
        if !anchors.isEmpty { return Found(feeds: anchors.map(\.url), chosen: rank(anchors), origin: .anchor) }
        return nil
    }

    /// True for `<link rel="alternate" type="application/rss+xml">` or Atom's (rel is a list of
    /// words, in any case; `rel="alternate nofollow"` counts).
    static func isAlternateFeed(_ link: PageLink) -> Bool {
        guard case .link(let rel, let type) = link.element else { return false }
        let words = rel.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        let mediaType = type.lowercased().prefix { $0 != ";" }.trimmingWhitespace()
        return words.contains("alternate") && feedTypes.contains(mediaType)
    }

    /// True for an `<a href>` whose path ends in `rss`, `xml` or `feed` (`/feed/`, `/show.rss`,
    /// `/podcast.xml`, `/rss`); a sitemap's XML is not a feed.
    static func looksLikeFeedAnchor(_ href: String) -> Bool {
        var path = href.prefix { $0 != "?" && $0 != "#" }.lowercased()
        while path.hasSuffix("/") { path.removeLast() }
        let name = path.split(separator: "/").last ?? ""
        if name.contains("sitemap") || name.contains("oembed") { return false }
        return path.hasSuffix("rss") || path.hasSuffix("xml") || path.hasSuffix("feed")
    }

    /// The feed to read of several: the first whose title or address speaks of a podcast
    /// (a blog's pages also list its posts' feed and its comments' feed), else the first that is
    /// not a comments feed, else the first.
    static func rank(_ feeds: [(url: String, title: String?)]) -> String {
        let words = ["podcast", "episode", "audio", "mp3", "itunes"]
        func text(_ feed: (url: String, title: String?)) -> String { (feed.url + " " + (feed.title ?? "")).lowercased() }
        if let podcast = feeds.first(where: { feed in words.contains { text(feed).contains($0) } }) { return podcast.url }
        if let notComments = feeds.first(where: { !text($0).contains("comment") }) { return notComments.url }
        return feeds[0].url
    }

    /// `n` of a path segment `<prefix><n>` (`id123`), when n is a positive number.
    private static func number(after prefix: String, in segment: Substring) -> Int? {
        guard segment.lowercased().hasPrefix(prefix) else { return nil }
        return positive(segment.dropFirst(prefix.count))
    }

    private static func positive(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(digits), value > 0 else { return nil }
        return value
    }
}
