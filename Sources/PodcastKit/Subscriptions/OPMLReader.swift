import PodcastHTTP
import PodcastText

/// Reads the subscriptions of an OPML file, as podcast apps export them: OPML 1.0 or 2.0, any
/// `<outline>` with an `xmlUrl` (any `type`, at any depth: category outlines are flattened).
///
/// Relative feed URLs resolve against the file's own URL; those that are not http(s) then are
/// skipped, those with a control character in them refused, and a feed listed twice is kept once
/// (the first): each is reported, not thrown,
/// so one odd line does not cost a user the rest of the list. An address written without its
/// scheme (`feeds.example.com/rss`, which would resolve to a path beside a local file) is the web
/// address a user meant, taken as https and reported: an OPML file never subscribes to a file.
/// Broken XML, on the other hand, throws: guessing at a damaged list could subscribe to half of it.
public enum OPMLReader {
    /// The largest file read: an OPML list of 10,000 podcasts is about 3 MiB.
    public static let maxBytes = 16 * 1024 * 1024
    /// The most feeds a file may list.
    public static let maxOutlines = 10_000

    /// The subscriptions listed in the OPML file `bytes`, read from `documentURL` (its
    /// `file:///…` URL, against which relative feed URLs resolve) and named `source` in errors.
    public static func read(_ bytes: [UInt8], documentURL: String, source: String) throws(OPMLError) -> OPMLDocument {
        guard bytes.count <= maxBytes else { throw OPMLError(.tooLarge(bytes: bytes.count), source: source) }
        let entries = try OPMLParser.entries(in: bytes, source: source)
        let resolver = URLResolver(documentURL: documentURL)
        var document = OPMLDocument(outlines: [])
        var seen = Set<String>()
        for entry in entries {
            guard !hasControlCharacter(entry.feedURL) else {
                document.refused.append(entry.feedURL)
                continue
            }
            guard var feedURL = resolver.resolve(entry.feedURL) else { continue }
            var schemeless = false
            let written = entry.feedURL.trimmingWhitespace()
            if URLOrigin(feedURL) == nil, FeedSource.looksLikeAddress(written) {
                feedURL = "https://" + written
                schemeless = true
            }
            guard URLOrigin(feedURL) != nil else {
                document.skipped.append(feedURL)
                continue
            }
            guard seen.insert(feedURL).inserted else {
                document.duplicates += 1
                continue
            }
            let title = [entry.title, entry.text].lazy.compactMap { $0 }.first { !$0.isEmpty }
            let htmlURL = entry.htmlURL.flatMap { hasControlCharacter($0) ? nil : resolver.resolve($0) }
                .flatMap { URLOrigin($0) != nil ? $0 : nil }
            let outline = OPMLOutline(title: title, feedURL: feedURL, htmlURL: htmlURL)
            document.outlines.append(outline)
            if schemeless { document.schemeless.append(outline) }
        }
        return document
    }

    /// True when `address` has a control character (a line break, a tab, C1): no URL does.
    private static func hasControlCharacter(_ address: String) -> Bool {
        address.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
