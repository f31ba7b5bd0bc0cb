/// Settings from the optional configuration file; the environment and command-line options
/// override them.
public struct Configuration: Sendable, Equatable {
    /// Sent as `User-Agent` instead of `podcast/<version>`.
    public var userAgent: String?
    /// Seconds allowed to connect.
    public var connectTimeout: Int?
    /// Seconds under 1 KiB/s before a transfer counts as stalled.
    public var stallTimeout: Int?
    /// The most one feed may take (`feed-timeout`), when `--feed-timeout` is not given.
    public var feedTimeout: Duration?
    /// The store country searches use when `--country` is not given.
    public var country: String?
    /// Episodes downloaded at once when `--concurrency` is not given.
    public var concurrency: Int?
    /// Connections to one host at once when `--max-per-host` is not given.
    public var maxPerHost: Int?
    /// Where finished episodes go when `--episodes-dir` is not given.
    public var episodesDirectory: String?
    /// The whole run's speed cap in bytes per second when `--limit-rate` is not given.
    public var limitRate: Int?
    /// Attempts without progress before an episode fails, when `--retries` is not given.
    public var retries: Int?
    /// The first wait before retrying a busy or unreachable server.
    public var retryWait: Duration?
    /// How long one episode may spend retrying before it fails.
    public var retryBudget: Duration?
    /// The most bytes one episode's file may hold, when `--max-size` is not given.
    public var maxEpisodeSize: Int64?
    /// Whether redirects from https to plain http are followed (`allow-insecure-redirects`).
    public var allowsInsecureRedirects: Bool?
    /// The certificate authorities to trust instead of the system's (`ca-file`).
    public var certificateAuthorities: String?
    /// Extra request headers (`headers`), `Name: value` each, when no `--header` is given.
    public var headers: [String]?
    /// The hosts `headers` go to (`header-hosts`); none: the server each request starts at.
    public var headerHosts: [String]?
    /// The proxy for every request (`proxy`), unless the environment names one.
    public var proxy: String?
    /// Whether cookies a server sets are kept for the rest of the run (`cookies`; default true).
    public var cookies: Bool?
    /// How finished files are named (`name-template`).
    public var nameTemplate: NameTemplate?
    /// Whether names also avoid what FAT, exFAT and SMB refuse (`portable-names`).
    public var portableNames: Bool?
    /// The companion files kept beside episodes (`with`).
    public var companions: Set<Companion>?
    /// Which transcript to prefer (`transcript-types`).
    public var transcriptTypes: [TranscriptFormat]?
    /// Whether finished episodes are tagged (`tag`).
    public var tag: Bool?
    /// Whether each podcast gets a playlist (`playlist`).
    public var playlist: Bool?
    /// Lines the file had that this version does not know (`file:line: key`), to warn about.
    public var unknownKeys: [String] = []
    /// The file read, when there was one.
    public var path: String?
    /// The line each setting was written on, by key (`concurrency`).
    public var lines: [String: Int] = [:]

    /// An empty configuration: every setting at its default.
    public init() {}

    /// Where `key` was set in the file (`path:line`), or nil when the file did not set it.
    public func origin(of key: String) -> String? {
        guard let path, let line = lines[key] else { return nil }
        return "\(path):\(line)"
    }

    /// The retry policy with this configuration applied over the defaults, and `retries` over both.
    public func retryPolicy(retries override: Int?) -> RetryPolicy {
        var policy = RetryPolicy()
        if let retries = override ?? retries { policy.retries = retries }
        if let retryWait { policy.firstWait = retryWait }
        if let retryBudget { policy.budget = retryBudget }
        return policy
    }

    /// The library settings with this configuration applied over the defaults.
    public var librarySettings: LibrarySettings {
        var settings = LibrarySettings()
        if let nameTemplate { settings.nameTemplate = nameTemplate }
        if let portableNames { settings.portableNames = portableNames }
        if let companions { settings.companions = companions }
        if let transcriptTypes { settings.transcriptTypes = transcriptTypes }
        if let tag { settings.tag = tag }
        if let playlist { settings.playlist = playlist }
        return settings
    }

    /// HTTP settings with this configuration applied over the defaults. A `proxy` from the file
    /// gives way to one in the environment (`http_proxy`, `https_proxy`, `all_proxy`), which
    /// libcurl then reads itself.
    public func httpSettings(environment: [String: String]) -> HTTPSettings {
        var settings = HTTPSettings()
        if let userAgent { settings.userAgent = userAgent }
        if let connectTimeout { settings.connectTimeout = connectTimeout }
        if let stallTimeout { settings.stallTimeout = stallTimeout }
        if let allowsInsecureRedirects { settings.allowsInsecureRedirects = allowsInsecureRedirects }
        if let cookies { settings.cookies = cookies }
        settings.certificateAuthorities = certificateAuthorities
        settings.headers = RequestHeaders(fields: headers ?? [], hosts: headerHosts ?? [])
        if Self.environmentProxy(environment) == nil { settings.proxy = proxy }
        return settings
    }

    /// The proxy variable the environment sets (name and value), which libcurl reads itself.
    public static func environmentProxy(_ environment: [String: String]) -> (name: String, value: String)? {
        for name in ["https_proxy", "HTTPS_PROXY", "http_proxy", "all_proxy", "ALL_PROXY"] {
            if let value = environment[name], !value.isEmpty { return (name, value) }
        }
        return nil
    }
}

/// A configuration file that could not be used, with the place and what to do.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The line, from 1, or nil when the whole file is the problem.
    public var line: Int?
    /// What is wrong.
    public var reason: String

    /// Creates an error.
    public init(path: String, line: Int?, reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }

    /// One line: which file and line, what is wrong, what to do.
    public var description: String {
        let place = line.map { "\(path):\($0)" } ?? path
        return "configuration \(place): \(reason); fix the file or point PODCAST_CONFIG elsewhere"
    }
}
