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
    /// The feed's guid for the episode (nil when its identity is a fallback).
    public var guid: String?
    /// The length the feed declares for the enclosure.
    public var enclosureLength: Int64?
    /// Bytes of the partial file made durable (`fdatasync`) before this record was written: after
    /// a reboot, only these are trusted.
    public var durableBytes: Int64 = 0
    /// The boot in which the partial file was written: in the same boot (after a kill -9) every
    /// byte in the file is trusted, since the page cache still holds it.
    public var dataBoot: String?
    /// Attempts in a row that gained no bytes.
    public var failures: Int = 0
    /// True when the last error is one retrying cannot fix (404, a web page for the episode).
    public var finalError: Bool = false
    /// Bytes per second at the last progress report, while downloading.
    public var speed: Double?
    /// The digest the feed publishes for the file, checked before it is final.
    public var integrity: Integrity?

    /// The validator to resume with: a strong ETag, else Last-Modified (a weak ETag cannot
    /// promise the same bytes, so `If-Range` never carries one).
    public var resumeValidator: String? {
        if let etag, !etag.hasPrefix("W/"), etag.hasPrefix("\"") { return etag }
        return lastModified
    }

    /// Takes over what `earlier` knew about the partial file and the server's copy, so a new
    /// attempt can continue where it stopped.
    public mutating func adoptResumeData(of earlier: DownloadRecord) {
        effectiveURL = earlier.effectiveURL
        etag = earlier.etag
        lastModified = earlier.lastModified
        bytes = earlier.bytes
        total = earlier.total
        durableBytes = earlier.durableBytes
        dataBoot = earlier.dataBoot
        failures = earlier.failures
    }

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
