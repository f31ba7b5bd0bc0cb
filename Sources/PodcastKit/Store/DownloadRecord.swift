import FoundationEssentials
import PodcastPlatform

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
        /// Finished, then its files were deleted by podcast (`delete`, `keep`): not `new` again.
        /// Only listings see this state (`DownloadRecords.records(feed:)`); no stored record has it.
        case deleted
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
    /// Bytes received (of the partial file, or the finished file's size).
    public var bytes: Int64
    /// What the partial file is worth to a later run.
    public var resume = ResumeRecord()
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
    /// Attempts in a row that gained no bytes.
    public var failures: Int = 0
    /// True when the last error is one retrying cannot fix (404, a web page for the episode).
    public var finalError: Bool = false
    /// Bytes per second at the last progress report, while downloading.
    public var speed: Double?
    /// The digest the feed publishes for the file, checked before it is final.
    public var integrity: Integrity?
    /// SHA-256 of the finished file as it is on disk (lowercase hex), for `podcast verify`; nil
    /// for files finished before digests were kept.
    public var sha256: String?
    /// The file settings the episode was asked with, when they are not the defaults: a resumed
    /// download is named, tagged and accompanied as it was begun.
    public var library: LibrarySettings?
    /// The subscription whose update asked for it; nil when it was asked for by hand. Recorded with
    /// the finished file: `keep` and `unsubscribe --delete-files` remove only their own (`FileOwnership`).
    public var subscription: Int?
    /// Which file podcast placed at `path` (device and inode), for `FileOwnership`; nil for files
    /// placed before podcast recorded it.
    public var fileStamp: FileIO.Stamp?

    /// Takes over what `earlier` knew about the partial file and the server's copy (its partial
    /// file stays this record's own), so a new attempt can continue where it stopped.
    public mutating func adoptResumeData(of earlier: DownloadRecord) {
        effectiveURL = earlier.effectiveURL
        bytes = earlier.bytes
        let partialPath = resume.partialPath
        resume = earlier.resume
        resume.partialPath = partialPath
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
