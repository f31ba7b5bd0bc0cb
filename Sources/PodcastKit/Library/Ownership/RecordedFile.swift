import PodcastPlatform

/// What the store says of a file podcast wrote: enough to tell whether it is still the file podcast
/// wrote, and whether the reason at hand is its own (`FileOwnership`).
public struct RecordedFile: Sendable, Equatable {
    /// What the file is to podcast.
    public enum Role: Sendable, Equatable {
        /// An episode's media file.
        case media(EpisodeKey)
        /// A file beside an episode (its transcript, chapters, artwork, info).
        case companion(EpisodeKey, LibraryFile.Kind)
        /// A file of a whole podcast (its cover, its playlist).
        case podcastFile(feed: String, LibraryFile.Kind)
    }

    /// Where it is.
    public var path: String
    /// What it is.
    public var role: Role
    /// Its size when podcast wrote it; nil while its episode is being fetched again (the record
    /// then counts the new copy's bytes), when the SHA-256 alone tells.
    public var bytes: Int64?
    /// Its SHA-256 (lowercase hex) when podcast wrote it; nil for files written before digests were kept.
    public var sha256: String?
    /// The subscription whose update wrote it (a companion: whose update wrote its episode's media
    /// file); nil for a file asked for by hand, or written before podcast recorded why.
    public var subscription: Int?
    /// Which file podcast placed there, and its ctime then; nil for files placed before podcast recorded it.
    public var stamp: FileIO.Stamp?

    /// Creates a record.
    public init(path: String, role: Role, bytes: Int64?, sha256: String?, subscription: Int?, stamp: FileIO.Stamp? = nil) {
        self.path = path
        self.role = role
        self.bytes = bytes
        self.sha256 = sha256
        self.subscription = subscription
        self.stamp = stamp
    }

    /// The feed it belongs to.
    public var feed: String {
        switch role {
        case .media(let key), .companion(let key, _): key.feed
        case .podcastFile(let feed, _): feed
        }
    }
}
