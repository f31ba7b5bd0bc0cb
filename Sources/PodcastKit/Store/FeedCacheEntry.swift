import FoundationEssentials

/// What podcast remembers of a feed's last full answer, for a conditional GET next time.
public struct FeedCacheEntry: Sendable, Equatable {
    /// The feed URL as requested.
    public var url: String
    /// The answer's `ETag`.
    public var etag: String?
    /// The answer's `Last-Modified`.
    public var lastModified: String?
    /// The file in the feed cache directory holding the answer's body.
    public var bodyFile: String
    /// When it was fetched.
    public var fetchedAt: Date

    /// Creates an entry.
    public init(url: String, etag: String?, lastModified: String?, bodyFile: String, fetchedAt: Date) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.bodyFile = bodyFile
        self.fetchedAt = fetchedAt
    }
}
