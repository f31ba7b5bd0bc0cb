import PodcastPlatform

/// A file podcast wrote into the Episodes directory that is not an episode's media: a companion
/// beside an episode, or a podcast's cover or playlist. Recorded so that only podcast's own files
/// are ever deleted, and so that they are checked and cleaned up with their episodes.
public struct LibraryFile: Sendable, Equatable {
    /// What the file is.
    public enum Kind: String, Sendable, CaseIterable {
        case transcript, chapters, image, info, cover, playlist

        /// What messages call it: "its transcript was not saved".
        var label: String {
            switch self {
            case .transcript: "transcript"
            case .chapters: "chapters file"
            case .image: "artwork"
            case .info: "info file"
            case .cover: "podcast cover"
            case .playlist: "playlist"
            }
        }
    }

    /// Where it is.
    public var path: String
    /// The feed it belongs to (as downloads are keyed).
    public var feed: String
    /// The episode it belongs to; nil for a podcast's cover or playlist.
    public var identity: String?
    /// What it is.
    public var kind: Kind
    /// Its size when podcast wrote it.
    public var bytes: Int64
    /// Its SHA-256 (lowercase hex) when podcast wrote it.
    public var sha256: String?
    /// For a podcast's cover or playlist: the subscription whose update wrote it (nil: by hand). An
    /// episode's companion follows its media file's record instead (`RecordedFile.subscription`).
    public var subscription: Int?
    /// Which file podcast placed at `path` (device and inode); nil for files placed before podcast recorded it.
    public var fileStamp: FileIO.Stamp?

    /// Creates a record.
    public init(
        path: String, feed: String, identity: String?, kind: Kind, bytes: Int64, sha256: String?, subscription: Int? = nil,
        fileStamp: FileIO.Stamp? = nil
    ) {
        self.path = path
        self.feed = feed
        self.identity = identity
        self.kind = kind
        self.bytes = bytes
        self.sha256 = sha256
        self.subscription = subscription
        self.fileStamp = fileStamp
    }
}
