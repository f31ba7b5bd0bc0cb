/// Which episode a record, a request or a download is about: the feed it belongs to (the
/// listing's key, or `previews:<term>`) and its identity within that feed (guid, then the
/// documented fallbacks). Two processes, or two runs, mean the same episode exactly when their
/// keys are equal.
public struct EpisodeKey: Hashable, Sendable {
    /// The feed's key.
    public var feed: String
    /// The episode's identity within the feed.
    public var identity: String

    /// Creates a key.
    public init(feed: String, identity: String) {
        self.feed = feed
        self.identity = identity
    }
}

extension DownloadRecord {
    /// The episode the record is about.
    public var key: EpisodeKey { EpisodeKey(feed: feed, identity: identity) }
}

extension AddressedStopRequest {
    /// The episode the request is about.
    public var key: EpisodeKey { EpisodeKey(feed: feed, identity: identity) }
}
