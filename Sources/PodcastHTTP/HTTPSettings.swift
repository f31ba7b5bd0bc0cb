import PodcastPlatform

/// How podcast talks HTTP: identity, patience and limits shared by API, feed and media requests.
public struct HTTPSettings: Sendable, Equatable {
    /// Sent as `User-Agent`.
    public var userAgent: String
    /// Seconds allowed to establish a connection (TCP and TLS).
    public var connectTimeout: Int
    /// A transfer slower than `stallSpeed` bytes per second for this many seconds has stalled.
    public var stallTimeout: Int
    /// The speed, in bytes per second, under which a transfer counts as stalled.
    public var stallSpeed: Int
    /// Redirects followed before giving up (libcurl's default is unlimited).
    public var maxRedirects: Int
    /// Headers the user asked for, and the servers they may go to.
    public var headers: RequestHeaders
    /// Whether a redirect from https to plain http is followed (by default it is refused).
    public var allowsInsecureRedirects: Bool
    /// A PEM file of the certificate authorities to trust instead of the system's (`ca-file`), for
    /// servers with a private CA; nil for the system's.
    public var certificateAuthorities: String?
    /// The proxy every request goes through (`CURLOPT_PROXY`); nil for libcurl's own choice,
    /// from `http_proxy`, `https_proxy` and `no_proxy`.
    public var proxy: String?
    /// Whether the cookies servers set are kept in memory and sent back for the rest of the run
    /// (a CDN that sets one on a redirect and wants it on the next hop).
    public var cookies: Bool
    /// The credentials the feed addresses given for this run carried (`URLCredentials`), sent
    /// with every request to their server; never stored with the run's other settings.
    public var credentials: URLCredentials

    /// The defaults: `podcast/<version>`, 15 s to connect, under 1 KiB/s for 60 s is a stall, 10 redirects,
    /// no extra headers, no step down from https to http, libcurl's proxy, cookies kept for the run.
    public init(
        userAgent: String = "podcast/\(podcastVersion)",
        connectTimeout: Int = 15,
        stallTimeout: Int = 60,
        stallSpeed: Int = 1024,
        maxRedirects: Int = 10,
        headers: RequestHeaders = RequestHeaders(),
        allowsInsecureRedirects: Bool = false,
        certificateAuthorities: String? = nil,
        proxy: String? = nil,
        cookies: Bool = true,
        credentials: URLCredentials = URLCredentials()
    ) {
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.stallSpeed = stallSpeed
        self.maxRedirects = maxRedirects
        self.headers = headers
        self.allowsInsecureRedirects = allowsInsecureRedirects
        self.certificateAuthorities = certificateAuthorities
        self.proxy = proxy
        self.cookies = cookies
        self.credentials = credentials
    }
}

extension HTTPSettings {
    /// These settings as every feed request uses them, whichever command asks: the user's
    /// `headers` go with them only when `header-hosts` names where. Unscoped headers are for the
    /// servers downloads start at (a private CDN's key) and must not reach every feed's host.
    public var forFeeds: HTTPSettings {
        var settings = self
        if settings.headers.hosts.isEmpty { settings.headers = RequestHeaders() }
        return settings
    }
}
