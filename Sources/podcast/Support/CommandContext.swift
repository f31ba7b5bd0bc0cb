import FoundationEssentials
import PodcastKit

/// Everything a command needs from its surroundings, resolved once from the environment.
struct CommandContext {
    let environment: [String: String]
    let paths: PodcastPaths
    let configuration: Configuration
    let console: Console

    /// The context of this process: environment, paths, configuration file. A configuration file
    /// that cannot be used is an error, except for a `tolerant` command (one that only reads
    /// state or stops work: a running download must stay stoppable while the file is being
    /// fixed), which runs with the defaults and a warning.
    static func current(tolerant: Bool = false) throws -> CommandContext {
        let environment = ProcessInfo.processInfo.environment
        let paths = PodcastPaths(environment: environment)
        let console = Console(environment: environment)
        let configuration: Configuration
        do {
            configuration = try Configuration.load(path: paths.configFile, required: !(environment["PODCAST_CONFIG"] ?? "").isEmpty)
        } catch {
            guard tolerant else { throw error }
            console.warning("\(error.description.prefix { $0 != ";" }); running with the default settings")
            return CommandContext(environment: environment, paths: paths, configuration: Configuration(), console: console)
        }
        for key in configuration.unknownKeys {
            console.warning("\(key) is not a setting this version knows; ignored")
        }
        return CommandContext(environment: environment, paths: paths, configuration: configuration, console: console)
    }

    /// The HTTP settings of searches and feed fetches: the file's over the defaults. The file's
    /// `headers` go with them only when `header-hosts` names where: unscoped, they are for the
    /// servers downloads start at, and must not reach the iTunes API or every feed's host.
    var httpSettings: HTTPSettings {
        configuration.httpSettings(environment: environment).forFeeds
    }

    /// How long feeds may take: `--feed-timeout` (`flag`, in seconds), else the file's
    /// `feed-timeout`, else the default.
    func feedDeadlines(flag: Double?) -> FeedDeadlines {
        let feed = flag.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) } ?? configuration.feedTimeout
        return FeedDeadlines(feed: feed ?? FeedDeadlines.defaultFeed)
    }

    /// The iTunes Search API base: `PODCAST_ITUNES_URL`, else Apple's.
    func itunesCatalog() throws -> ITunesCatalog {
        let http = HTTPClient(settings: httpSettings)
        guard let base = environment["PODCAST_ITUNES_URL"], !base.isEmpty else {
            return ITunesCatalog(http: http)
        }
        guard HTTPClient.isHTTP(base) else {
            throw UsageError(
                "PODCAST_ITUNES_URL is not an http(s) URL: \"\(base)\"; set it to a server such as "
                    + "http://127.0.0.1:8080, or unset it to use \(ITunesCatalog.defaultBaseURL)")
        }
        return ITunesCatalog(baseURL: base, http: http)
    }

    /// What reads the feed a user names (a URL, a file, a search number, `itunes:<id>`), with
    /// the feed cache in the home and `store` holding the last search; `progress` hears how a
    /// long fetch goes.
    func feedReader(store: StateStore, progress: ((FeedFetchProgress) -> Void)? = nil) throws -> FeedReader {
        FeedReader(catalog: try itunesCatalog(), fetcher: feedFetcher(store: store, progress: progress), store: store)
    }

    /// What fetches feeds by URL, with conditional GET against the feed cache in the home.
    func feedFetcher(store: StateStore, progress: ((FeedFetchProgress) -> Void)? = nil) -> FeedFetcher {
        FeedFetcher(
            settings: httpSettings, feedTimeout: feedDeadlines(flag: nil).feed, cache: store,
            cacheDirectory: paths.home + "/feeds", progress: progress)
    }

    /// The state store, created on first use.
    func openStore() throws -> StateStore {
        try StateStore.open(paths: paths)
    }
}
