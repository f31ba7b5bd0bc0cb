import FoundationEssentials

/// A podcast feed as read: the show and its episodes, newest first.
public struct Feed: Sendable, Equatable {
    /// The show's title.
    public var title: String
    /// The URL the feed was read from (after redirects), or `file://` for a local file.
    public var url: String
    /// The show's web page.
    public var link: String?
    /// The show's description, as plain text.
    public var description: String?
    /// The show's author.
    public var author: String?
    /// The show's artwork.
    public var image: String?
    /// The language code the feed declares.
    public var language: String?
    /// Where the publisher says the feed has moved (`itunes:new-feed-url`).
    public var newFeedURL: String?
    /// The next page of an RFC 5005 paged feed (`atom:link rel="next"`).
    public var nextPageURL: String?
    /// `podcast:locked`: the publisher asks other platforms not to import the feed.
    public var isLocked: Bool
    /// `podcast:funding` links.
    public var funding: [Link]
    /// The episodes, newest first.
    public var episodes: [Episode]

    /// A link with its label.
    public struct Link: Sendable, Equatable {
        /// The URL.
        public var url: String
        /// The text shown for it.
        public var title: String?
    }

    /// An empty feed read from `url`.
    public init(url: String) {
        self.title = ""
        self.url = url
        self.isLocked = false
        self.funding = []
        self.episodes = []
    }
}

/// One episode (or any item) of a feed.
public struct Episode: Sendable, Equatable {
    /// The item's guid (Atom: id) exactly as the feed gives it, or nil.
    public var guid: String?
    /// The title; an item without one takes its enclosure's file name.
    public var title: String
    /// When it was published.
    public var published: Date?
    /// Length in whole seconds.
    public var duration: Int?
    /// The show notes, as plain text.
    public var description: String?
    /// The episode's web page.
    public var link: String?
    /// Episode artwork.
    public var image: String?
    /// `itunes:season` / `podcast:season`.
    public var season: Int?
    /// `itunes:episode` / `podcast:episode`.
    public var episodeNumber: Int?
    /// `full`, `trailer` or `bonus`.
    public var episodeType: String?
    /// The media file, or nil when the item has no usable one.
    public var enclosure: Enclosure?
    /// Other renditions (`podcast:alternateEnclosure`), each with its sources and integrity.
    public var alternateEnclosures: [AlternateEnclosure]
    /// Transcripts (`podcast:transcript`).
    public var transcripts: [Transcript]
    /// The JSON chapters file (`podcast:chapters`).
    public var chaptersURL: String?
    /// Podlove Simple Chapters in the feed itself.
    public var chapters: [Chapter]
    /// `itunes:explicit`.
    public var isExplicit: Bool?
    /// `itunes:block`: hidden from directories, still downloadable.
    public var isBlocked: Bool

    /// An episode with only a title.
    public init(title: String) {
        self.title = title
        self.alternateEnclosures = []
        self.transcripts = []
        self.chapters = []
        self.isBlocked = false
    }

    /// What identifies the episode across fetches: the guid; else the enclosure URL's key
    /// (`EnclosureIdentity`: without the tokens and tracking redirects that change from fetch to
    /// fetch); else the title and publication time. The listing and downloads are keyed by it.
    public var identity: String {
        if let guid, !guid.isEmpty { return guid }
        if let url = enclosure?.url { return "enclosure:" + EnclosureIdentity.key(of: url) }
        let time = published.map { String(Int64($0.timeIntervalSince1970)) } ?? "undated"
        return "title:\(title)@\(time)"
    }
}

/// An episode's media file.
public struct Enclosure: Sendable, Equatable {
    /// Absolute http(s) URL.
    public var url: String
    /// The MIME type the feed declares.
    public var type: String?
    /// The length in bytes the feed declares (nil when absent, zero or nonsense).
    public var length: Int64?

    /// Creates an enclosure.
    public init(url: String, type: String?, length: Int64?) {
        self.url = url
        self.type = type
        self.length = length
    }
}

/// A `podcast:alternateEnclosure`: another rendition of the episode.
public struct AlternateEnclosure: Sendable, Equatable {
    /// The MIME type.
    public var type: String?
    /// The length in bytes.
    public var length: Int64?
    /// Where to get it.
    public var sources: [String]
    /// `podcast:integrity`: `sri` or `pgp-signature`, and its value.
    public var integrity: Integrity?
}

/// A digest or signature the publisher gives for a file.
public struct Integrity: Sendable, Equatable {
    /// `sri` (e.g. `sha384-…`) or `pgp-signature`.
    public var type: String
    /// The digest or signature.
    public var value: String
}

/// A transcript of an episode.
public struct Transcript: Sendable, Equatable {
    /// Where it is.
    public var url: String
    /// Its MIME type (`text/vtt`, `application/srt`, …).
    public var type: String?

    /// Creates a transcript link.
    public init(url: String, type: String?) {
        self.url = url
        self.type = type
    }
}

/// A Podlove simple chapter.
public struct Chapter: Sendable, Equatable {
    /// Seconds from the start.
    public var start: Double
    /// The chapter's title.
    public var title: String
    /// A link for the chapter.
    public var link: String?
}
