/// An absolute URL cut into its scheme, authority, path, query and fragment (RFC 3986 §3), as
/// text, nothing decoded: what comparing two addresses of the same thing needs, where a
/// difference in the case of the host or an explicit default port names no other resource.
public struct URLParts: Equatable, Sendable {
    /// The scheme, lower-cased.
    public var scheme: String
    /// `user:password@host:port`, the host lower-cased, a default port (80, 443) dropped.
    var authority: String
    /// From the first `/` after the authority (may be empty).
    public var path: String
    /// What follows `?`, without it; nil when there is no `?`.
    public var query: String?
    /// What follows `#`, without it; nil when there is no `#`.
    public var fragment: String?

    /// The parts of `url`, or nil when it has no `scheme://`.
    public init?(_ url: String) {
        guard let schemeEnd = url.firstRange(of: "://"), !url[..<schemeEnd.lowerBound].isEmpty else { return nil }
        scheme = url[..<schemeEnd.lowerBound].lowercased()
        var rest = url[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        path = String(rest[slash...])
        authority = Self.canonical(authority: rest[..<slash], scheme: scheme)
    }

    /// The host (and port) of `authority`, without the credentials.
    public var host: Substring {
        authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority[...]
    }

    /// The URL these parts make.
    public var url: String {
        scheme + "://" + authority + path + (query.map { "?" + $0 } ?? "") + (fragment.map { "#" + $0 } ?? "")
    }

    /// `authority` with its host lower-cased (credentials keep their case) and a port that is the
    /// scheme's default dropped.
    private static func canonical(authority: Substring, scheme: String) -> String {
        var credentials = Substring("")
        var host = authority
        if let at = authority.lastIndex(of: "@") {
            credentials = authority[...at]
            host = authority[authority.index(after: at)...]
        }
        // The port follows the last colon, unless that colon is inside an IPv6 literal's brackets.
        if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]") {
            let port = host[host.index(after: colon)...]
            if port.isEmpty || (port == "80" && scheme == "http") || (port == "443" && scheme == "https") {
                host = host[..<colon]
            }
        }
        return String(credentials) + host.lowercased()
    }
}
