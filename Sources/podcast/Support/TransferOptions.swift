import ArgumentParser
import FoundationEssentials
import PodcastKit

/// The options of every command that downloads (`download`, `resume`); each also has a key in the
/// configuration file, which the option overrides.
struct TransferOptions: ParsableArguments {
    @Option(help: "Episodes downloaded at once (1 to 16; default 3, or `concurrency` in the configuration file).")
    var concurrency: Int?

    @Option(help: "Where finished episodes go (default: $PODCAST_EPISODES_DIR or $PODCAST_HOME/Episodes).", completion: .directory)
    var episodesDir: String?

    @Option(help: "Connections to one host at once (1 to 16; default 2, or `max-per-host` in the configuration file).")
    var maxPerHost: Int?

    @Option(help: "Cap the whole run's speed, in bytes per second, with k, M or G (500k, 2M), binary units as shown.")
    var limitRate: String?

    @Option(help: "Stop an episode whose file grows past this size, with k, M or G (500M, 16G; default 16G).")
    var maxSize: String?

    @Option(help: "A transfer slower than 1 KiB/s for this many seconds has stalled; it continues from where it stopped (default 60).")
    var stallTimeout: Int?

    @Option(help: "Attempts in a row without progress before an episode fails (default 6).")
    var retries: Int?

    @Option(help: "Send this User-Agent instead of podcast/<version>.")
    var userAgent: String?

    @Option(help: ArgumentHelp(
        "An extra request header, 'Name: value' (repeatable); sent to the server each download starts at, "
            + "never past a redirect to another one (see --header-host).",
        valueName: "header"))
    var header: [String] = []

    @Option(help: ArgumentHelp(
        "Send the --header headers to this host and its subdomains only, also after redirects (repeatable).",
        valueName: "host"))
    var headerHost: [String] = []

    @Option(help: ArgumentHelp(
        "Send every request through this proxy (http://host:port, socks5h://host:port) instead of http_proxy/https_proxy.",
        valueName: "url"))
    var proxy: String?

    @Flag(help: "Follow redirects from https to plain http (refused by default; allow-insecure-redirects in the configuration file).")
    var allowInsecureRedirects = false

    @OptionGroup
    var library: LibraryOptions

    func validate() throws {
        if let episodesDir, episodesDir.trimmingWhitespace().isEmpty {
            throw ValidationError("--episodes-dir is empty; give a folder such as ~/Podcasts, or leave the option out for the default")
        }
        if let concurrency, !(1...16).contains(concurrency) {
            throw ValidationError("--concurrency must be between 1 and 16, not \(concurrency)")
        }
        if let limitRate, ByteCount.bytesPerSecond(limitRate) == nil {
            throw ValidationError("--limit-rate takes bytes per second such as 500k or 2M, not \"\(limitRate)\"")
        }
        if let maxSize, ByteCount.parse(maxSize) == nil {
            throw ValidationError("--max-size takes a size such as 500M or 16G, not \"\(maxSize)\"")
        }
        if let stallTimeout, stallTimeout < 1 { throw ValidationError("--stall-timeout must be 1 or more seconds") }
        if let retries, retries < 1 { throw ValidationError("--retries must be 1 or more") }
        for header in header {
            if let problem = RequestHeaders.problem(with: header) { throw ValidationError("--header: \(problem)") }
        }
        if !headerHost.isEmpty && header.isEmpty {
            throw ValidationError("--header-host names the hosts for --header; give the headers too")
        }
        for host in headerHost where !RequestHeaders.isHostName(host) {
            throw ValidationError("--header-host takes a host name such as cdn.example.com, not \"\(host)\"")
        }
        if let maxPerHost, !(1...16).contains(maxPerHost) {
            throw ValidationError("--max-per-host must be between 1 and 16, not \(maxPerHost)")
        }
    }

    /// The settings these options make over the environment and the configuration file's. Given
    /// `--header`s replace the file's `headers` (and `header-hosts`).
    func settings(context: CommandContext) -> DownloadSettings {
        let configuration = context.configuration
        var http = configuration.httpSettings(environment: context.environment)
        if let userAgent { http.userAgent = userAgent }
        if let stallTimeout { http.stallTimeout = stallTimeout }
        if allowInsecureRedirects { http.allowsInsecureRedirects = true }
        if let proxy { http.proxy = proxy }
        if !header.isEmpty { http.headers = RequestHeaders(fields: header, hosts: headerHost) }
        let engine = TransferEngine.Settings(
            concurrency: concurrency ?? configuration.concurrency ?? 3,
            connectionsPerHost: maxPerHost ?? configuration.maxPerHost ?? 2,
            rateLimit: limitRate.flatMap(ByteCount.bytesPerSecond) ?? configuration.limitRate, http: http,
            maxEpisodeSize: maxSize.flatMap(ByteCount.parse) ?? configuration.maxEpisodeSize ?? TransferRequest.defaultMaxSize)
        return DownloadSettings(
            episodesDirectory: episodesDirectory(context: context), engine: engine, retry: configuration.retryPolicy(retries: retries),
            library: library.settings(over: configuration))
    }

    /// Where finished episodes go, absolute: the option, then the environment, then the
    /// configuration file, then the default.
    func episodesDirectory(context: CommandContext) -> String {
        Self.episodesDirectory(option: episodesDir, context: context)
    }

    /// Where finished episodes go for `option` (`--episodes-dir`, when given), absolute.
    static func episodesDirectory(option: String?, context: CommandContext) -> String {
        let fromEnvironment = context.environment["PODCAST_EPISODES_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        let directory = option ?? fromEnvironment ?? context.configuration.episodesDirectory ?? context.paths.episodesDirectory
        return absolute(directory, environment: context.environment)
    }

    /// `path` with `~` expanded, made absolute and without `.` and `..` parts, so records name
    /// files that every later run, from any directory, can find, and messages show them plainly.
    static func absolute(_ path: String, environment: [String: String]) -> String {
        var expanded = path
        if expanded == "~" || expanded.hasPrefix("~/") {
            expanded = (environment["HOME"] ?? "") + expanded.dropFirst()
        }
        if !expanded.hasPrefix("/") { expanded = FileManager.default.currentDirectoryPath + "/" + expanded }
        var parts: [Substring] = []
        for part in expanded.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }
}
