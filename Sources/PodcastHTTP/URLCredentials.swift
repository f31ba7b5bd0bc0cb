/// The `user:password@` a feed's address was given with for one run (`podcast download
/// https://user:pass@host/feed.xml 3`), held apart from the address.
///
/// Addresses are what podcast stores: listings, download records, batches and the feed cache are
/// keyed by them and kept for ever, so a password inside one would be kept for ever too. The
/// command that is given such an address takes its credentials out (`take(from:)`), uses the bare
/// address everywhere, and keeps the credentials only in its settings for the run (and, for a
/// background batch, in the batch's private secrets file). Each request gets them back at the one
/// place a request is made (`CurlEasy`), for the server they were given for: the same scheme,
/// host and port, so an episode on the feed's server is reached with them as before and a
/// redirect to another server never carries them.
public struct URLCredentials: Sendable, Equatable, Codable {
    /// The userinfo as written (percent-encoding kept), by origin (`URLOrigin.key`).
    public private(set) var byOrigin: [String: String]

    /// No credentials.
    public init() {
        byOrigin = [:]
    }

    /// True when there are none.
    public var isEmpty: Bool { byOrigin.isEmpty }

    /// `url` without its userinfo, which is kept for the URL's origin; `url` as it is when it has
    /// none, or is no absolute http(s) URL.
    public mutating func take(from url: String) -> String {
        guard let origin = URLOrigin(url), var parts = URLParts(url), let at = parts.authority.lastIndex(of: "@") else { return url }
        byOrigin[origin.key] = String(parts.authority[..<at])
        parts.authority = String(parts.authority[parts.authority.index(after: at)...])
        return parts.url
    }

    /// `url` as a request sends it: with the credentials kept for its origin, unless it carries
    /// its own (a feed may list an enclosure with them) or there are none for it.
    func applied(to url: String) -> String {
        guard !byOrigin.isEmpty, let origin = URLOrigin(url), let userinfo = byOrigin[origin.key],
            let schemeEnd = url.firstRange(of: "://")
        else { return url }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return url }
        return String(url[..<schemeEnd.upperBound]) + userinfo + "@" + url[schemeEnd.upperBound...]
    }
}
