import FoundationEssentials

/// One episode's entry in the progress buffer: what is being fetched, from where, how far, and
/// where it ended up.
public struct DownloadRecord: Sendable, Equatable {
    /// Where the download stands.
    public enum State: String, Sendable, Equatable {
        /// Waiting for a slot.
        case queued
        /// Being fetched by `owner`.
        case downloading
        /// Stopped on request; resumable.
        case paused
        /// Stopped by an error (see `error`).
        case failed
        /// Finished: `path` holds the file.
        case downloaded
    }

    /// The listing's feed URL (or `previews:` for music previews).
    public var feed: String
    /// The episode's identity within the feed.
    public var identity: String
    /// The podcast's title (the folder name comes from it).
    public var podcastTitle: String
    /// The episode's title.
    public var title: String
    /// The enclosure URL as the feed gives it.
    public var url: String
    /// Where the last attempt was served from, after redirects.
    public var effectiveURL: String?
    /// The media type the feed declares.
    public var mediaType: String?
    /// The episode's publication date.
    public var published: Date?
    /// Where the download stands.
    public var state: State
    /// Bytes received.
    public var bytes: Int64
    /// The whole size, when known.
    public var total: Int64?
    /// The validator of what was received.
    public var etag: String?
    /// The other validator of what was received.
    public var lastModified: String?
    /// The partial file.
    public var partialPath: String?
    /// The finished file.
    public var path: String?
    /// Why it failed, one line.
    public var error: String?
    /// The process working on it.
    public var owner: ProcessOwner?

    /// A new record for an episode about to be fetched.
    public init(feed: String, identity: String, podcastTitle: String, title: String, url: String, mediaType: String?, published: Date?) {
        self.feed = feed
        self.identity = identity
        self.podcastTitle = podcastTitle
        self.title = title
        self.url = url
        self.mediaType = mediaType
        self.published = published
        self.state = .queued
        self.bytes = 0
    }
}
