import PodcastKit

/// Every setting as a download would use it, resolved as `TransferOptions.settings` resolves
/// it (flag, then environment, then file, then default), with the layer it came from.
struct EffectiveSettings {
    /// One setting: its configuration key, its value written as TOML (nil when it is not set:
    /// no speed cap, the system's CAs, no proxy), and where it came from.
    struct Setting {
        var key: String
        var value: String?
        var origin: String
    }

    let list: [Setting]

    init(transfer: TransferOptions, context: CommandContext) {
        let resolved = transfer.settings(context: context)
        let file = context.configuration
        let http = resolved.engine.http, engine = resolved.engine, retry = resolved.retry
        /// The origin of `key`: its flag when given, else the environment variable when set, else the file's line, else the default.
        func origin(_ key: String, flag: String? = nil, given: Bool = false, environment: String? = nil) -> String {
            if given, let flag { return "flag --\(flag)" }
            if let environment { return "environment (\(environment))" }
            return file.origin(of: key) ?? "default"
        }
        let episodesVariable = (context.environment["PODCAST_EPISODES_DIR"] ?? "").isEmpty ? nil : "PODCAST_EPISODES_DIR"
        let proxyVariable = Configuration.environmentProxy(context.environment)
        let headers = http.headers
        var list = [
            Setting(key: "country", value: Self.quoted(file.country ?? "US"), origin: origin("country")),
            Setting(key: "user-agent", value: Self.quoted(http.userAgent), origin: origin("user-agent", flag: "user-agent", given: transfer.userAgent != nil)),
            Setting(key: "connect-timeout", value: "\(http.connectTimeout)", origin: origin("connect-timeout")),
            Setting(key: "stall-timeout", value: "\(http.stallTimeout)", origin: origin("stall-timeout", flag: "stall-timeout", given: transfer.stallTimeout != nil)),
            Setting(key: "feed-timeout", value: Self.seconds(context.feedDeadlines(flag: nil).feed), origin: origin("feed-timeout")),
            Setting(key: "concurrency", value: "\(engine.concurrency)", origin: origin("concurrency", flag: "concurrency", given: transfer.concurrency != nil)),
            Setting(key: "max-per-host", value: "\(engine.connectionsPerHost)", origin: origin("max-per-host", flag: "max-per-host", given: transfer.maxPerHost != nil)),
            Setting(
                key: "episodes-dir", value: Self.quoted(resolved.episodesDirectory),
                origin: origin("episodes-dir", flag: "episodes-dir", given: transfer.episodesDir != nil, environment: transfer.episodesDir == nil ? episodesVariable : nil)),
            Setting(
                key: "limit-rate", value: engine.rateLimit.map { Self.quoted(ByteCount.written(Int64($0))) },
                origin: origin("limit-rate", flag: "limit-rate", given: transfer.limitRate != nil)),
            Setting(key: "max-episode-size", value: Self.quoted(ByteCount.written(engine.maxEpisodeSize)), origin: origin("max-episode-size", flag: "max-size", given: transfer.maxSize != nil)),
            Setting(key: "retries", value: "\(retry.retries)", origin: origin("retries", flag: "retries", given: transfer.retries != nil)),
            Setting(key: "retry-wait", value: Self.seconds(retry.firstWait), origin: origin("retry-wait")),
            Setting(key: "retry-budget", value: Self.seconds(retry.budget), origin: origin("retry-budget")),
            Setting(
                key: "allow-insecure-redirects", value: "\(http.allowsInsecureRedirects)",
                origin: origin("allow-insecure-redirects", flag: "allow-insecure-redirects", given: transfer.allowInsecureRedirects)),
            Setting(key: "ca-file", value: http.certificateAuthorities.map(Self.quoted), origin: origin("ca-file")),
            Setting(
                key: "headers", value: "[" + headers.names.map { Self.quoted($0 + ": ***") }.joined(separator: ", ") + "]",
                origin: origin("headers", flag: "header", given: !transfer.header.isEmpty)),
            Setting(
                key: "header-hosts", value: "[" + headers.hosts.map(Self.quoted).joined(separator: ", ") + "]",
                origin: origin("header-hosts", flag: "header-host", given: !transfer.headerHost.isEmpty)),
        ]
        let proxyOrigin = transfer.proxy != nil ? "flag --proxy" : proxyVariable.map { "environment (\($0.name))" } ?? file.origin(of: "proxy") ?? "default"
        let proxyValue = http.proxy ?? proxyVariable?.value
        list.append(Setting(key: "proxy", value: proxyValue.map(Self.quoted), origin: proxyOrigin))
        list.append(Setting(key: "cookies", value: "\(http.cookies)", origin: origin("cookies")))
        self.list = list
    }

    /// `text` as a TOML basic string.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// Seconds as TOML: whole when whole (`2`), else with their fraction (`0.5`).
    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }
}
