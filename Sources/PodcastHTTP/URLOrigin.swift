/// The scheme, host and port of an http(s) URL: which server a request goes to. Headers a user
/// gave for one server, and the choice of whether a redirect is a downgrade, are decided by it.
public struct URLOrigin: Hashable, Sendable {
    /// `http` or `https`, lower-cased.
    let scheme: String
    /// The host, lower-cased, without brackets for an IPv6 address.
    let host: String
    /// The port, explicit or the scheme's default.
    let port: Int

    /// The origin of `url`, or nil when it is not an absolute http(s) URL with a host.
    public init?(_ url: String) {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // Credentials (`user:password@`) are no part of which server it is.
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = Substring(authority)
        var port: Int? = nil
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if rest.hasPrefix(":") { port = Int(rest.dropFirst()) }
            else if !rest.isEmpty { return nil }
        } else if let colon = host.lastIndex(of: ":") {
            port = Int(host[host.index(after: colon)...])
            host = host[..<colon]
        }
        guard !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port ?? (scheme == "https" ? 443 : 80)
    }

    /// The origin as one text, `scheme://host:port`: a key for what is kept per server.
    var key: String { "\(scheme)://\(host):\(port)" }

    /// True for `https`: a redirect from here to plain `http` would send the request, and what
    /// comes back, unencrypted.
    var isSecure: Bool { scheme == "https" }

    /// True when this origin's host is `domain` or one of its subdomains (`cdn.example.com` is in
    /// `example.com`), matched by whole labels.
    func isWithin(_ domain: String) -> Bool {
        let domain = domain.lowercased()
        return host == domain || host.hasSuffix("." + domain)
    }
}
