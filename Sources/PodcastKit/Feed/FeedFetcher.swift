import FoundationEssentials
import PodcastHTTP

/// Fetches one feed for a command that lists it (`episodes`, `show`, `subscribe`,
/// `download <feed>`): the feed's `FeedRefresh` carried out by a `FeedRound` on an engine of
/// its own, so conditional GET against the cache (a 304 re-reads the stored answer), moves,
/// `itunes:new-feed-url`, paging, deadlines and feed settings are the very ones `update` uses.
///
/// Blocks the calling thread; not Sendable through its cache.
public struct FeedFetcher {
    /// A fetched feed and how it was reached.
    public struct Fetched: Sendable {
        /// The feed (all pages merged) and what to warn about.
        public var result: FeedParser.Result
        /// The address to remember for the feed: where it lives now.
        public var url: String
        /// How the feed moved, one line each, to tell the user.
        public var moves: [String]
        /// True when the server said the first page had not changed since the last fetch.
        public var notModified: Bool
        /// How many pages were read.
        public var pages: Int
        /// The first page's validators, when it was fetched whole or answered 304 (for the
        /// conditional GET of a subscription's first update).
        public var validators: FeedCacheEntry?
        /// How the feed was found, when what was named is a link to a page, not the feed.
        public var resolution: FeedResolution?

        /// What to tell the user of how the feed was reached, one line each: how a link was
        /// resolved, then how the feed moved.
        public var notes: [String] { (resolution.map { [$0.note] } ?? []) + moves }
    }

    /// The settings of feed requests; their headers go only where `header-hosts` says
    /// (`HTTPSettings.forFeeds`).
    public var settings: HTTPSettings
    /// How long the feed may take.
    public var feedTimeout: Duration
    /// Validators of earlier answers.
    public var cache: any FeedCache
    /// The directory keeping the bodies of earlier answers.
    public var cacheDirectory: String
    /// Told how much of a page has arrived, on the thread that called `fetch`, as bytes arrive:
    /// once a page has taken a second, and then at most four times a second (`ProgressPacing`).
    public var progress: ((FeedFetchProgress) -> Void)?

    /// A fetcher with `settings` (scoped to feeds here), remembering answers in `cache` and
    /// `cacheDirectory`; `progress`, when given, hears how a slow page is coming along.
    public init(
        settings: HTTPSettings, feedTimeout: Duration = FeedDeadlines.defaultFeed, cache: any FeedCache,
        cacheDirectory: String, progress: ((FeedFetchProgress) -> Void)? = nil
    ) {
        self.settings = settings.forFeeds
        self.feedTimeout = feedTimeout
        self.cache = cache
        self.cacheDirectory = cacheDirectory
        self.progress = progress
    }

    /// Fetches the feed at `url`; `refresh` skips the conditional GET.
    public func fetch(_ url: String, refresh: Bool = false) throws(FeedError) -> Fetched {
        let cached = refresh ? nil : wholeCacheEntry(url)
        let last = FeedRefresh.LastAnswer(etag: cached?.etag, lastModified: cached?.lastModified)
        let round = FeedRound(
            [FeedRefresh(subscription: 0, url: url, last: last, listsUnchanged: true)], http: settings,
            deadlines: FeedDeadlines(feed: feedTimeout), cacheDirectory: cacheDirectory)
        round.progress = progress
        var outcome: FeedRound.Outcome?
        do {
            try round.runAlone(engine: TransferEngine.Settings(concurrency: 1, feedConcurrency: 2, http: settings), refresh: refresh) {
                outcome = outcome ?? round.takeEnded().first
            }
        } catch {
            throw FeedError(.cache(error), source: url)
        }
        guard let outcome else { throw FeedError(.interrupted, source: url) }
        let refresh = outcome.refresh
        guard case .updated = outcome.ending, var result = refresh.result else {
            if case .failed(let error) = outcome.ending { throw error }
            // A listing's refresh ends otherwise only when stopped.
            throw FeedError(.interrupted, source: url)
        }
        var validators = refresh.notModified ? cached : outcome.cacheEntry
        if !refresh.notModified, let entry = outcome.cacheEntry {
            do {
                try cache.save(entry)
            } catch {
                validators = nil
                result.warnings.append("the answer of \(url) could not be remembered for next time (\(error)); it is fetched whole again")
            }
        }
        let moves = refresh.moves.map { move in
            move.cause == .permanentRedirect
                ? "feed \(move.from) has moved permanently to \(move.to); use the new address from now on"
                : "feed \(move.from) says it has moved to \(move.to) (itunes:new-feed-url); reading it from there"
        }
        return Fetched(
            result: result, url: refresh.address, moves: moves, notModified: refresh.notModified, pages: refresh.pages,
            validators: validators)
    }

    /// The feed at `url` as last fetched, read from the feed cache without asking the server, or
    /// nil when the cache has no whole copy of it.
    public func cached(_ url: String) throws(FeedError) -> FeedParser.Result? {
        guard let entry = wholeCacheEntry(url) else { return nil }
        return try FeedFile.parse(file: cacheDirectory + "/" + entry.bodyFile, url: url, source: url)
    }

    /// The cache entry of `url` whose body is still on disk; nil when there is none, or the
    /// cache cannot be read (then the feed is simply fetched whole).
    private func wholeCacheEntry(_ url: String) -> FeedCacheEntry? {
        guard let entry = try? cache.entry(url: url),
            FileManager.default.fileExists(atPath: cacheDirectory + "/" + entry.bodyFile)
        else { return nil }
        return entry
    }
}
