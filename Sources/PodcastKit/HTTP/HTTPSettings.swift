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
    /// Extra request headers, each `Name: value`.
    public var extraHeaders: [String]

    /// The defaults: `podcast/<version>`, 15 s to connect, under 1 KiB/s for 60 s is a stall, 10 redirects.
    public init(
        userAgent: String = "podcast/\(podcastVersion)",
        connectTimeout: Int = 15,
        stallTimeout: Int = 60,
        stallSpeed: Int = 1024,
        maxRedirects: Int = 10,
        extraHeaders: [String] = []
    ) {
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.stallSpeed = stallSpeed
        self.maxRedirects = maxRedirects
        self.extraHeaders = extraHeaders
    }
}
