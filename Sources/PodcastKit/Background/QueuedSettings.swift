import FoundationEssentials

/// What a background batch records of the `DownloadSettings` it was queued with, as the
/// `batches.options` column holds it: every setting, resolved, except the values of the user's
/// headers, which may be secrets and stay in a private file (`BatchHeaders`) this names.
///
/// Stored as JSON whose fields are all optional, so a record written by another version still
/// reads: a setting it lacks takes its default. The same settings give the same text, which is
/// how the worker finds batches it can run together.
public struct QueuedSettings: Sendable, Equatable, Codable {
    var episodesDirectory: String?
    var concurrency: Int?
    var connectionsPerHost: Int?
    var rateLimit: Int?
    var maxEpisodeSize: Int64?
    var userAgent: String?
    var connectTimeout: Int?
    var stallTimeout: Int?
    var stallSpeed: Int?
    var maxRedirects: Int?
    var allowsInsecureRedirects: Bool?
    var certificateAuthorities: String?
    var headerHosts: [String]?
    var proxy: String?
    var cookies: Bool?
    /// The `BatchHeaders` file with the header values; nil when the batch sends none.
    public private(set) var headersFile: String?
    var retries: Int?
    var firstWaitSeconds: Double?
    var longestWaitSeconds: Double?
    var budgetSeconds: Double?
    var nameTemplate: String?
    var portableNames: Bool?
    var companions: [String]?
    var transcriptTypes: [String]?
    var tag: Bool?
    var playlist: Bool?
    /// An update's `feed-timeout`, in seconds (nil: the default).
    var feedTimeoutSeconds: Double?

    /// The record of `settings`, whose headers (if any) are kept in `headersFile`.
    public init(_ settings: DownloadSettings, headersFile: String?) {
        let engine = settings.engine, http = engine.http, retry = settings.retry
        episodesDirectory = settings.episodesDirectory
        concurrency = engine.concurrency
        connectionsPerHost = engine.connectionsPerHost
        rateLimit = engine.rateLimit
        maxEpisodeSize = engine.maxEpisodeSize
        userAgent = http.userAgent
        connectTimeout = http.connectTimeout
        stallTimeout = http.stallTimeout
        stallSpeed = http.stallSpeed
        maxRedirects = http.maxRedirects
        allowsInsecureRedirects = http.allowsInsecureRedirects
        certificateAuthorities = http.certificateAuthorities
        headerHosts = http.headers.isEmpty ? nil : http.headers.hosts
        proxy = http.proxy
        cookies = http.cookies
        self.headersFile = http.headers.isEmpty ? nil : headersFile
        retries = retry.retries
        firstWaitSeconds = Self.seconds(retry.firstWait)
        longestWaitSeconds = Self.seconds(retry.longestWait)
        budgetSeconds = Self.seconds(retry.budget)
        let library = settings.library
        nameTemplate = library.nameTemplate.text
        portableNames = library.portableNames
        companions = library.companions.sorted().map(\.rawValue)
        transcriptTypes = library.transcriptTypes.map(\.rawValue)
        tag = library.tag
        playlist = library.playlist
    }

    /// How long an update's feeds may take.
    public var feedDeadlines: FeedDeadlines {
        get { FeedDeadlines(feed: feedTimeoutSeconds.map { .milliseconds(Int64(($0 * 1000).rounded())) } ?? FeedDeadlines.defaultFeed) }
        set { feedTimeoutSeconds = Self.seconds(newValue.feed) }
    }

    /// The settings recorded, with `headers` (read from `headersFile`) as the headers' values.
    /// `fallbackDirectory` stands in for a record that names no Episodes directory.
    public func settings(headers: [String], fallbackDirectory: String) -> DownloadSettings {
        var http = HTTPSettings()
        if let userAgent { http.userAgent = userAgent }
        if let connectTimeout { http.connectTimeout = connectTimeout }
        if let stallTimeout { http.stallTimeout = stallTimeout }
        if let stallSpeed { http.stallSpeed = stallSpeed }
        if let maxRedirects { http.maxRedirects = maxRedirects }
        if let allowsInsecureRedirects { http.allowsInsecureRedirects = allowsInsecureRedirects }
        http.certificateAuthorities = certificateAuthorities
        http.proxy = proxy
        if let cookies { http.cookies = cookies }
        http.headers = RequestHeaders(fields: headers, hosts: headerHosts ?? [])
        var engine = TransferEngine.Settings(http: http)
        if let concurrency { engine.concurrency = concurrency }
        if let connectionsPerHost { engine.connectionsPerHost = connectionsPerHost }
        engine.rateLimit = rateLimit
        if let maxEpisodeSize { engine.maxEpisodeSize = maxEpisodeSize }
        var retry = RetryPolicy()
        if let retries { retry.retries = retries }
        if let firstWaitSeconds { retry.firstWait = .seconds(firstWaitSeconds) }
        if let longestWaitSeconds { retry.longestWait = .seconds(longestWaitSeconds) }
        if let budgetSeconds { retry.budget = .seconds(budgetSeconds) }
        return DownloadSettings(episodesDirectory: episodesDirectory ?? fallbackDirectory, engine: engine, retry: retry, library: library)
    }

    /// The library settings recorded; one that no longer reads (another version's) keeps its default.
    private var library: LibrarySettings {
        var library = LibrarySettings()
        if let nameTemplate, let template = try? NameTemplate(nameTemplate) { library.nameTemplate = template }
        if let portableNames { library.portableNames = portableNames }
        if let companions, let set = try? Companion.set(from: companions) { library.companions = set }
        if let transcriptTypes, let order = try? TranscriptFormat.order(from: transcriptTypes) { library.transcriptTypes = order }
        if let tag { library.tag = tag }
        if let playlist { library.playlist = playlist }
        return library
    }

    /// The column's text: JSON with sorted keys, the same text for the same settings.
    var stored: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // A struct of optional numbers, strings and booleans always encodes.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The record in `text`. Earlier versions stored the command-line options as a JSON array;
    /// of those only `--episodes-dir` is taken (the rest is left at the defaults): the episodes go
    /// on where their partial files are. Text that is neither reads as all defaults.
    init(stored text: String) {
        let data = Data(text.utf8)
        if let record = try? JSONDecoder().decode(Self.self, from: data) {
            self = record
            return
        }
        self.init(DownloadSettings(episodesDirectory: ""), headersFile: nil)
        episodesDirectory = nil
        if let arguments = try? JSONDecoder().decode([String].self, from: data),
            let flag = arguments.firstIndex(of: "--episodes-dir"), flag + 1 < arguments.count {
            episodesDirectory = arguments[flag + 1]
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
