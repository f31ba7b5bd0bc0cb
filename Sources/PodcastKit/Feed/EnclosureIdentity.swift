import PodcastHTTP

/// What of an enclosure URL names its episode, for an item without a guid (`Episode.identity`).
///
/// Hosts and measurement services change an enclosure's URL without changing the episode: a
/// per-fetch `?token=` or signature, campaign parameters, a fragment, a tracking redirect put in
/// front of the real address (`https://dts.podtrac.com/redirect.mp3/host/path`). Taken whole,
/// each such URL made a new identity, and every fetch downloaded the whole feed again (castget#67,
/// gpodder#1407, podcast-dl#139). The key keeps everything else: the query is never dropped whole,
/// since some hosts tell episodes apart only by it (`download.php?id=7`).
///
/// A URL with none of these parts is its own key, so identities made before the rule existed
/// stay the same for almost every feed; `EpisodeTriage.sameEpisodes` maps the others.
enum EnclosureIdentity {
    /// Redirects of measurement services, each followed by the real address (`host/path`, or
    /// `https://host/path`): host, then path segments; `*` in a segment stands for any text.
    /// A host that serves the file itself (traffic.megaphone.fm) is no prefix.
    static let trackingPrefixes: [String] = [
        "dts.podtrac.com/redirect.*", "www.podtrac.com/pts/redirect.*", "podtrac.com/pts/redirect.*",
        "chtbl.com/track/*", "chrt.fm/track/*", "pdst.fm/e", "arttrk.com/p/*", "pscrb.fm/rss/p",
        "verifi.podscribe.com/rss/p", "prfx.byspotify.com/e", "claritaspod.com/measure", "op3.dev/e", "op3.dev/e,*",
        "mgln.ai/e/*", "pfx.vpixl.com/*", "tracking.swap.fm/track/*", "pdcn.co/e",
    ]

    /// Query parameters that change from fetch to fetch (signatures, expiries, cache busters) or
    /// only say where the listener came from, by lower-cased name; `*` at the end takes every
    /// name that begins so.
    static let volatileParameters: [String] = [
        "token", "access_token", "updated", "modified", "expires", "expire", "signature", "sig", "timestamp", "ts",
        "utm_*", "awcollectionid", "awepisodeid", "key-pair-id", "policy", "x-amz-*", "awsaccesskeyid",
        "hdnts", "cb", "cachebuster", "nocache", "_",
    ]

    /// The key of the enclosure at `url`: its real address (tracking redirects taken off), scheme
    /// and host lower-cased, without a default port, the fragment or volatile parameters. A URL
    /// without `scheme://` is its own key.
    static func key(of url: String) -> String {
        guard var parts = realAddress(of: url) else { return url }
        parts.fragment = nil
        parts.query = parts.query.flatMap(keptQuery)
        return parts.url
    }

    /// The path of `url`'s real address with the query it keeps (no host, fragment or volatile
    /// parameters): what an undated item can still be recognised by when its host or a token
    /// changes, and what still tells `play.mp3?id=1` from `play.mp3?id=2`.
    static func path(of url: String) -> String {
        guard let parts = realAddress(of: url) else { return url }
        return parts.path + (parts.query.flatMap(keptQuery).map { "?" + $0 } ?? "")
    }

    // MARK: Steps

    /// The parts of `url` with every tracking redirect in front of the real address taken off
    /// (they can be chained: `pdst.fm/e/chtbl.com/track/X/host/path`).
    private static func realAddress(of url: String) -> URLParts? {
        guard var parts = URLParts(url) else { return nil }
        // Each round takes one prefix off, so a URL of a few hundred bytes ends long before this.
        for _ in 0..<8 {
            guard let inner = strippingPrefix(parts) else { break }
            parts = inner
        }
        return parts
    }

    /// `parts` without the tracking prefix it begins with, or nil when it begins with none.
    private static func strippingPrefix(_ parts: URLParts) -> URLParts? {
        let host = parts.host
        let segments = parts.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for prefix in trackingPrefixes {
            let pattern = prefix.split(separator: "/")
            guard let patternHost = pattern.first, patternHost == host, segments.count > pattern.count - 1 else { continue }
            let matched = zip(pattern.dropFirst(), segments).allSatisfy { matches($1, $0) }
            guard matched else { continue }
            let rest = segments.dropFirst(pattern.count - 1).joined(separator: "/")
            let lowered = rest.lowercased()
            let absolute = lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
            // What follows must be an address: a scheme, or a first segment that is a host name.
            guard absolute || rest.prefix(while: { $0 != "/" }).contains(".") else { continue }
            var inner = (absolute ? rest : parts.scheme + "://" + rest)
            if let query = parts.query { inner += "?" + query }
            if let fragment = parts.fragment { inner += "#" + fragment }
            return URLParts(inner)
        }
        return nil
    }

    /// `query` without its volatile parameters, in the order given; nil when none is left.
    private static func keptQuery(_ query: String) -> String? {
        let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { parameter in
            let name = parameter.prefix { $0 != "=" }.lowercased()
            return !volatileParameters.contains { matches(Substring(name), Substring($0)) }
        }
        return kept.isEmpty ? nil : kept.joined(separator: "&")
    }

    /// True when `text` matches `pattern`, whose one `*` (if any) stands for any text of at least
    /// one character.
    private static func matches(_ text: Substring, _ pattern: Substring) -> Bool {
        guard let star = pattern.firstIndex(of: "*") else { return text == pattern }
        let head = pattern[..<star]
        let tail = pattern[pattern.index(after: star)...]
        return text.count > head.count + tail.count && text.hasPrefix(head) && text.hasSuffix(tail)
    }
}
