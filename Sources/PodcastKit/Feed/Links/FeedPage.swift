import PodcastHTTP
import PodcastPlatform
import PodcastText

/// How a link that is not a feed was turned into one, to say so (`note`) and to list what else
/// was found (`feeds`).
public struct FeedResolution: Sendable, Equatable {
    /// How the feed was found.
    public enum Way: Sendable, Equatable {
        /// The iTunes lookup of the Apple id an Apple Podcasts or Overcast link carries.
        case appleLookup(id: Int)
        /// The page's `<link rel="alternate">` feeds.
        case alternate
        /// The page's `<a href>`s ending in rss, xml or feed.
        case anchor
    }

    /// The link as given.
    public var link: String
    /// Every feed found, the chosen one among them.
    public var feeds: [String]
    /// The feed read.
    public var chosen: String
    /// How it was found.
    public var way: Way

    /// `link` resolved to `chosen`, one of `feeds`, found `way`.
    public init(link: String, feeds: [String], chosen: String, way: Way) {
        self.link = link
        self.feeds = feeds
        self.chosen = chosen
        self.way = way
    }

    /// One line for stderr: `https://example.com/show → https://example.com/feed.xml (from the
    /// page's alternate link)`, naming the others when the page names several.
    public var note: String {
        let others = feeds.filter { $0 != chosen }
        let from: String
        switch way {
        case .appleLookup(let id): from = "from the iTunes lookup of id \(id)"
        case .alternate: from = others.isEmpty ? "from the page's alternate link" : "the first podcast feed of the page's \(feeds.count) alternate links"
        case .anchor: from = others.isEmpty ? "from a feed link on the page" : "the first podcast feed of \(feeds.count) feed links on the page"
        }
        let rest = others.isEmpty ? "" : "; it also names " + others.joined(separator: ", ")
        return "\(link) → \(chosen) (\(from))\(rest)"
    }
}

/// A web page read for the feeds it names: its first `maxBytes` (feed links are in the head),
/// fetched through the feed requests' HTTP settings, or from the file `update` fetched it into
/// when a subscription's address answered with it.
enum FeedPage {
    /// How much of a page is read. A page past it is read that far: its head is long over.
    static let maxBytes = 2 * 1024 * 1024

    /// The feeds the page at `url` names (`FeedLink.choose`). Throws `FeedError` when the page
    /// cannot be fetched, or names no feed (saying what was looked for, and how much was read).
    static func feeds(at url: String, http: HTTPClient) throws(FeedError) -> FeedResolution {
        var start = Start()
        var contentType: String?
        var pageURL = url
        do {
            _ = try http.stream(url, begin: { type, effective in
                contentType = type
                pageURL = effective
            }) { start.take($0) }
        } catch {
            throw FeedError(.http(error), source: url)
        }
        return try resolution(of: start, link: url, pageURL: pageURL, contentType: contentType)
    }

    /// The feeds the page `link` names, its answer already in the file at `path` (fetched as a
    /// feed by `update`, from `pageURL` after redirects, as `contentType`): its first `maxBytes`
    /// are read as `feeds(at:http:)` reads them. Throws `FeedError` as that does, or when the file
    /// cannot be read.
    static func feeds(inFile path: String, link: String, pageURL: String, contentType: String?) throws(FeedError) -> FeedResolution {
        var start = Start()
        do {
            try FileIO.read(path) { start.take($0) }
        } catch {
            throw FeedError(.cache(error), source: link)
        }
        return try resolution(of: start, link: link, pageURL: pageURL, contentType: contentType)
    }

    /// The first `maxBytes` of a page, taken piece by piece as they are read.
    private struct Start {
        var body: [UInt8] = []
        /// True when the page went on past `maxBytes`.
        var cut = false

        /// Takes `piece`; false once `maxBytes` are taken (the rest is not read).
        mutating func take(_ piece: UnsafeRawBufferPointer) -> Bool {
            let room = FeedPage.maxBytes - body.count
            guard piece.count <= room else {
                body.append(contentsOf: piece.prefix(room))
                cut = true
                return false
            }
            body.append(contentsOf: piece)
            return true
        }
    }

    /// The feed chosen of those the page's `start` names (`FeedLink.choose`).
    private static func resolution(of start: Start, link: String, pageURL: String, contentType: String?) throws(FeedError) -> FeedResolution {
        let links = HTMLPageLinks.read(start.body, url: pageURL, encoding: charset(of: contentType))
        guard let found = FeedLink.choose(from: links, pageURL: pageURL) else {
            throw FeedError(.noFeedOnPage(readLimit: start.cut ? maxBytes : nil), source: link)
        }
        return FeedResolution(link: link, feeds: found.feeds, chosen: found.chosen, way: found.origin == .alternate ? .alternate : .anchor)
    }

    /// The `charset` parameter of a Content-Type, when there is one.
    static func charset(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "charset" else { continue }
            let value = String(pair[1].filter { $0 != "\"" && $0 != "'" }).trimmingWhitespace()
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
