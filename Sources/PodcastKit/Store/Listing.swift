import FoundationEssentials

/// The last list shown to the user that `podcast download N` refers to:
/// a feed's episodes, or the previews of a music search.
public struct Listing: Sendable, Equatable {
    /// Where the listed items came from.
    public enum Source: Sendable, Equatable {
        /// The episodes of the feed at `url`, titled `title`.
        case feed(url: String, title: String)
        /// The song previews of a music search for `term`.
        case previews(term: String)
    }

    /// Where the items came from.
    public var source: Source
    /// The items, numbered from 1.
    public var items: [ListingItem]

    /// Creates a listing.
    public init(source: Source, items: [ListingItem]) {
        self.source = source
        self.items = items
    }
}

/// One numbered item of a listing, held by identity so a number keeps meaning the same
/// episode when the feed changes.
public struct ListingItem: Sendable, Equatable {
    /// The number shown to the user, from 1.
    public var number: Int
    /// The item's identity: the feed's guid, or a documented fallback when it has none.
    public var identity: String
    /// The title shown.
    public var title: String
    /// The media file's URL, or nil for an item with no usable enclosure.
    public var enclosureURL: String?
    /// The media type the feed declares.
    public var enclosureType: String?
    /// The length in bytes the feed declares.
    public var enclosureLength: Int64?
    /// The publication date.
    public var published: Date?
    /// The feed's own guid for the item, or nil when it has none (the identity is then a fallback).
    public var guid: String?
    /// The digest the feed publishes for the media file (`podcast:integrity`), checked before
    /// the file is final.
    public var integrity: Integrity?

    /// Creates a listing item.
    public init(
        number: Int, identity: String, title: String, enclosureURL: String? = nil,
        enclosureType: String? = nil, enclosureLength: Int64? = nil, published: Date? = nil, guid: String? = nil,
        integrity: Integrity? = nil
    ) {
        self.number = number
        self.integrity = integrity
        self.identity = identity
        self.guid = guid
        self.title = title
        self.enclosureURL = enclosureURL
        self.enclosureType = enclosureType
        self.enclosureLength = enclosureLength
        self.published = published
    }
}
