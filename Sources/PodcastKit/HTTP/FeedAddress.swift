/// The one written form of a feed's address, so that `HTTP://h/x`, `http://h:80/x` and
/// `http://h/x#top` are one subscription (and each episode is downloaded once), not three.
///
/// Only what can never name another document changes: the scheme's and host's case (both are
/// case-insensitive, RFC 3986 §3.1 and §3.2.2), the scheme's default port, and the fragment
/// (never sent to the server). The userinfo, path and query are the server's to interpret, so
/// they are kept exactly, percent-encoding and case included.
public enum FeedAddress {
    /// `address` normalised, when it is an absolute http(s) URL with a host; anything else as it is.
    public static func normalized(_ address: String) -> String {
        guard let schemeEnd = address.firstRange(of: "://") else { return address }
        let scheme = address[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return address }
        let afterScheme = address[schemeEnd.upperBound...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var rest = afterScheme[authority.endIndex...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var userinfo = Substring()
        var hostAndPort = authority[...]
        if let at = authority.lastIndex(of: "@") {
            userinfo = authority[...at]
            hostAndPort = authority[authority.index(after: at)...]
        }
        // The port follows the last colon, unless that colon is inside an IPv6 literal's brackets.
        var host = hostAndPort
        var port: Substring?
        if let colon = hostAndPort.lastIndex(of: ":"), !hostAndPort[colon...].contains("]") {
            host = hostAndPort[..<colon]
            port = hostAndPort[hostAndPort.index(after: colon)...]
        }
        guard !host.isEmpty else { return address }
        let defaultPort = scheme == "https" ? "443" : "80"
        let keptPort = port.flatMap { $0.isEmpty || $0 == defaultPort ? nil : ":" + $0 } ?? ""
        return scheme + "://" + userinfo + host.lowercased() + keptPort + rest
    }

    /// True when `one` and `other` are the same feed address once normalised.
    public static func sameFeed(_ one: String, _ other: String) -> Bool {
        normalized(one) == normalized(other)
    }
}
