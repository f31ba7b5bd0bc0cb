import FoundationEssentials
import PodcastHTTP
import PodcastKit
import PodcastPlatform
import PodcastText

/// Everything a command needs from its surroundings, resolved once from the environment.
struct CommandContext {
    let environment: [String: String]
    let paths: PodcastPaths
    let configuration: Configuration
    let console: Console
    /// The file's settings under the environment's, before any option, with the credentials of
    /// the feed address the command was given (`takeCredentials(from:store:)`).
    private(set) var base: ResolvedSettings

    /// The context of this process: environment, paths, configuration file. A configuration file
    /// that cannot be used is an error, except for a `tolerant` command (one that only reads
    /// state or stops work: a running download must stay stoppable while the file is being
    /// fixed), which runs with the defaults and a warning.
    static func current(tolerant: Bool = false) throws -> CommandContext {
        let environment = ProcessInfo.processInfo.environment
        let paths = PodcastPaths(environment: environment)
        let console = Console(environment: environment)
        var configuration: Configuration
        do {
            configuration = try Configuration.load(path: paths.configFile, required: !(environment["PODCAST_CONFIG"] ?? "").isEmpty)
        } catch {
            guard tolerant else { throw error }
            console.warning("\(error.description.prefix { $0 != ";" }); running with the default settings")
            configuration = Configuration()
        }
        for warning in configuration.warnings { console.warning(warning) }
        var base = ResolvedSettings(configuration: configuration)
        do {
            try base.apply(environment: environment)
        } catch {
            guard tolerant else { throw error }
            console.warning("\(error.description.prefix { $0 != ";" }); running without it")
        }
        return CommandContext(environment: environment, paths: paths, configuration: configuration, console: console, base: base)
    }

    /// The settings a command runs with: `given` (its options) over the environment, the file and
    /// the defaults, with the Episodes directory made absolute.
    func settings(_ given: [GivenSetting]) throws -> ResolvedSettings {
        var resolved = base
        for setting in given { try resolved.apply(setting.value, to: setting.key, flag: setting.flag) }
        resolved.settle(episodesDirectory: TransferOptions.absolute(resolved.settings.episodesDirectory ?? paths.episodesDirectory, environment: environment))
        return resolved
    }

    /// The HTTP settings of searches and feed fetches: the file's and the environment's over the
    /// defaults. The file's `headers` go with them only when `header-hosts` names where:
    /// unscoped, they are for the servers downloads start at, and must not reach the iTunes API
    /// or every feed's host.
    var httpSettings: HTTPSettings {
        base.settings.http.forFeeds
    }

    /// How long feeds may take: `--feed-timeout` (given as `flag`), else the file's
    /// `feed-timeout`, else the default.
    func feedDeadlines(flag: String?) throws -> FeedDeadlines {
        try settings(flag.map { [GivenSetting("feed-timeout", text: $0)] } ?? []).settings.feedDeadlines
    }

    /// The iTunes Search API base: `PODCAST_ITUNES_URL`, else Apple's.
    func itunesCatalog() throws -> ITunesCatalog {
        ITunesCatalog(baseURL: try directoryBase(ITunesCatalog.info), http: HTTPClient(settings: httpSettings))
    }

    /// The directory `type` at its base (its environment variable's, else the real service's),
    /// with the settings it needs; a missing one is a usage error naming it and this file.
    func directory(_ type: any PodcastDirectory.Type) throws -> any PodcastDirectory {
        do {
            return try type.init(baseURL: try directoryBase(type.info), http: HTTPClient(settings: httpSettings), settings: base.settings)
        } catch let error as DirectorySetupError {
            throw UsageError(error.description(configFile: paths.configFile))
        }
    }

    /// `info.baseURLVariable`'s URL when it is set, else the directory's real base.
    private func directoryBase(_ info: SearchDirectoryInfo) throws -> String {
        guard let base = environment[info.baseURLVariable], !base.isEmpty else { return info.defaultBaseURL }
        guard HTTPClient.isHTTP(base) else {
            throw UsageError(
                "\(info.baseURLVariable) is not an http(s) URL: \"\(base)\"; set it to a server such as "
                    + "http://127.0.0.1:8080, or unset it to use \(info.defaultBaseURL)")
        }
        return base
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
            settings: httpSettings, feedTimeout: base.settings.feedTimeout, cache: store.feedCache,
            cacheDirectory: paths.home + "/feeds", progress: progress)
    }

    /// `feed` as the command reads and stores it. An http(s) address given with `user:password@`
    /// gives them up to the run's settings (`URLCredentials`), so no listing, record, batch or
    /// cache podcast keeps holds them, while every request to that server still sends them. A
    /// subscription's own address keeps them: they are what its every update needs, and its
    /// records are keyed by it.
    mutating func takeCredentials(from feed: String, store: StateStore) throws -> String {
        let trimmed = feed.trimmingWhitespace()
        guard HTTPClient.isHTTP(trimmed) else { return feed }
        let address = FeedAddress.normalized(trimmed)
        guard try store.subscriptions.find(url: address) == nil else { return feed }
        let bare = base.takeCredentials(from: address)
        return bare == address ? feed : bare
    }

    /// True when the feed this command was given carried credentials (`takeCredentials`): a
    /// later command has them only if the feed is named with them again, so advice about what
    /// to run next names the feed instead of `podcast resume` or a listing's number alone.
    var credentialsAreForThisRunOnly: Bool {
        !base.settings.http.credentials.isEmpty
    }

    /// The state store, created on first use; from then on a SIGBUS is the store's (`StoreFault`).
    func openStore() throws -> StateStore {
        StoreFault.report(forStoreAt: paths.database)
        return try StateStore.open(paths: paths)
    }
}
