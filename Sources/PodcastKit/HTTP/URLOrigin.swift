import Glibc

/// The scheme, host and port of an http(s) URL: which server a request goes to. Headers a user
/// gave for one server, and the choice of whether a redirect is a downgrade, are decided by it.
struct URLOrigin: Hashable, Sendable {
    /// `http` or `https`, lower-cased.
    let scheme: String
    /// The host, lower-cased, without brackets for an IPv6 address.
    let host: String
    /// The port, explicit or the scheme's default.
    let port: Int

    /// The origin of `url`, or nil when it is not an absolute http(s) URL with a host.
    init?(_ url: String) {
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

/// URLs as podcast shows them: with the credentials of `https://user:password@host/` replaced,
/// so no error line, log, `status` row or `--json` document repeats a password or a token.
public enum URLRedaction {
    /// What is shown in place of a URL's credentials.
    public static let mask = "***"

    /// `url` with its `user:password@` part (if any) replaced by `***@`; any other text unchanged.
    public static func redacted(_ url: String) -> String {
        // Credentials need an `@`; looked for with memchr first, since the search for `://` costs
        // some 15,000 instructions a URL (a third of a long feed's `--json`) and almost no URL has one.
        let hasAt = url.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.baseAddress.map { memchr($0, Int32(UInt8(ascii: "@")), bytes.count) != nil } ?? false
        } ?? true
        guard hasAt, let schemeEnd = url.firstRange(of: "://") else { return url }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd.upperBound]) + mask + String(url[at...])
    }

    /// `text` with the credentials of every http(s) URL in it replaced (`redacted(_:)`): for
    /// messages that quote a URL among other words, such as libcurl's own.
    public static func redactedText(_ text: String) -> String {
        guard text.contains("@") else { return text }
        var result = ""
        var rest = Substring(text)
        while let start = rest.firstRange(of: "://") {
            // The scheme runs back to the last character that cannot be in one.
            let schemeStart = rest[..<start.lowerBound].lastIndex { !($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
                .map { rest.index(after: $0) } ?? rest.startIndex
            result += rest[..<schemeStart]
            let end = rest[start.upperBound...].firstIndex { $0 == " " || $0 == "\"" || $0 == "'" || $0 == ">" || $0 == "\n" } ?? rest.endIndex
            result += redacted(String(rest[schemeStart..<end]))
            rest = rest[end...]
        }
        return result + rest
    }
}
