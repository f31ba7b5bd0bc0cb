import PodcastHTTP

/// Every setting's value, typed: what a command, a background batch or an update runs with.
/// `SettingsSchema` names each setting once and says where in this value it lives; the file,
/// the environment, the command line and stored records all reach it through the schema.
public struct Settings: Sendable, Equatable {
    /// The iTunes store country searches use.
    public var country = "US"
    /// The Podcast Index API key (`search --directory podcastindex`); nil: none set.
    public var podcastIndexKey: String?
    /// The Podcast Index API secret, which signs each request; never shown, never stored.
    public var podcastIndexSecret: String?
    /// Where finished episodes go; nil: the home's Episodes directory.
    public var episodesDirectory: String?
    /// Concurrency, speed and size caps, and how requests are made.
    public var engine = TransferEngine.Settings()
    /// When failed attempts are tried again, and when an episode fails.
    public var retry = RetryPolicy()
    /// How finished files are named, and what goes with them.
    public var library = LibrarySettings()
    /// The most one feed may take in an update.
    public var feedTimeout = FeedDeadlines.defaultFeed

    /// Every setting at its default.
    public init() {}

    /// How requests are made (identity, timeouts, headers, proxy).
    public var http: HTTPSettings {
        get { engine.http }
        set { engine.http = newValue }
    }

    /// How long an update's feeds may take.
    public var feedDeadlines: FeedDeadlines { FeedDeadlines(feed: feedTimeout) }

    /// What a download batch runs with; `home` is the Episodes directory when none is set.
    public func download(defaultEpisodesDirectory home: String) -> DownloadSettings {
        DownloadSettings(episodesDirectory: episodesDirectory ?? home, engine: engine, retry: retry, library: library)
    }
}
