import Glibc
import PodcastHTTP
import PodcastText

/// What the user named as a feed: `podcast episodes <feed>`.
public enum FeedSource: Sendable, Equatable {
    /// An http(s) URL.
    case url(String)
    /// A file on this machine (a path, or a `file://` URL's path).
    case file(String)
    /// A number from the last search.
    case searchResult(Int)
    /// `itunes:<id>`, resolved through the lookup endpoint.
    case itunes(id: Int)
    /// An Apple Podcasts or Overcast link (`FeedLink.appleID`), resolved through the lookup
    /// endpoint by the id it carries, never fetched itself.
    case appleLink(String, id: Int)

    /// Reads the argument: an Apple Podcasts or Overcast link, an http(s) URL (normalised by
    /// `FeedAddress`; a web page's feeds are found when it is read, by `FeedReader`), a `file://`
    /// URL, `itunes:<id>`, a number, else a file path.
    /// Throws for what can only be a mistake, saying what was meant: another scheme (`ftp://`),
    /// an `itunes:` id that is not a number, and an address pasted without its scheme
    /// (`example.com/feed.xml`, which names no file here).
    public init(argument: String) throws(UsageError) {
        let trimmed = argument.trimmingWhitespace()
        let lowered = trimmed.lowercased()
        if HTTPClient.isHTTP(trimmed), let id = FeedLink.appleID(in: trimmed) {
            self = .appleLink(trimmed, id: id)
        } else if HTTPClient.isHTTP(trimmed) {
            // One form per address, so listings, downloads and subscriptions are keyed alike.
            self = .url(FeedAddress.normalized(trimmed))
        } else if lowered.hasPrefix("file://") {
            self = .file(try Self.path(ofFileURL: trimmed))
        } else if lowered.hasPrefix("itunes:") {
            let id = trimmed.dropFirst("itunes:".count)
            guard let number = Int(id), number > 0 else {
                throw UsageError("\(trimmed) needs a numeric id, such as itunes:1440215666 (the number in an Apple Podcasts link)")
            }
            self = .itunes(id: number)
        } else if let scheme = Self.scheme(of: lowered) {
            throw UsageError(
                "unsupported scheme \(scheme) in \(trimmed); give an http(s) URL, a file:// URL, "
                    + "a file, a number from the last search, or itunes:<id>")
        } else if let number = Int(trimmed), number >= 0, !trimmed.contains("/") {
            self = .searchResult(number)
        } else {
            if access(argument, F_OK) != 0, Self.looksLikeAddress(trimmed) {
                throw UsageError("\(trimmed) is not a file here and has no scheme; did you mean http://\(trimmed)?")
            }
            self = .file(argument)
        }
    }

    /// `scheme` of `scheme://…`, when the text starts like a URL.
    private static func scheme(of text: String) -> String? {
        guard let separator = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        else { return nil }
        return String(scheme)
    }

    /// True for `host.name/path` or `host:port/…` (a web address without its scheme): the part
    /// before the first `/` has a dot or a port and no spaces, and the text does not start like a
    /// relative path. An OPML file's feed address is read by the same rule (`OPMLReader`).
    static func looksLikeAddress(_ text: String) -> Bool {
        guard !text.hasPrefix("."), !text.hasPrefix("/"), !text.hasPrefix("~") else { return false }
        let host = text.prefix { $0 != "/" }
        guard !host.isEmpty, !host.contains(" "), host.count < text.count || host.contains(":") else { return false }
        let name = host.prefix { $0 != ":" }
        let port = host.dropFirst(name.count + 1)
        let hasPort = host.contains(":") && !port.isEmpty && port.allSatisfy(\.isNumber)
        let hasDot = name.contains(".") && !name.hasSuffix(".") && name.last.map { $0.isLetter || $0.isNumber } == true
        let isLocal = name == "localhost"
        return hasPort || (hasDot && !name.hasSuffix(".xml") && !name.hasSuffix(".rss")) || (isLocal && host.count < text.count)
    }

    /// The path of a `file:` URL (`file:///p`, `file://localhost/p`), percent-decoded: a feed's,
    /// or the OPML file `import` reads.
    public static func path(ofFileURL url: String) throws(UsageError) -> String {
        var rest = url.dropFirst("file://".count)
        if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
        guard rest.hasPrefix("/"), let decoded = percentDecoded(rest) else {
            throw UsageError("\(url) is not a file URL of this machine; write it as file:///path/to/file")
        }
        return decoded
    }

    /// `text` with `%XX` escapes decoded, or nil when an escape is broken or the bytes are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
