/// One episode asked for: its number in the listing, what to fetch, and whose it is.
///
/// Its fields live in one shared, immutable box: an item is copied into the batch's state, its
/// result and every progress update, and for 2,000 episodes a pointer per copy instead of the
/// whole entry is most of a megabyte.
public struct DownloadItem: Sendable, Equatable {
    @usableFromInline
    final class Fields: Sendable {
        @usableFromInline let number: Int?
        @usableFromInline let entry: ListingItem
        @usableFromInline let feed: String
        @usableFromInline let podcastTitle: String
        @usableFromInline let episodesDirectory: String?
        @usableFromInline let library: LibrarySettings?
        @usableFromInline let subscription: Int?

        init(
            number: Int?, entry: ListingItem, feed: String, podcastTitle: String, episodesDirectory: String?, library: LibrarySettings?,
            subscription: Int?
        ) {
            self.number = number
            self.entry = entry
            self.feed = feed
            self.podcastTitle = podcastTitle
            self.episodesDirectory = episodesDirectory
            self.library = library
            self.subscription = subscription
        }
    }

    // The accessors below lend the boxed values rather than copy them, also from other modules:
    // `item.entry.title` must not copy the whole entry.
    @usableFromInline let fields: Fields

    /// The number shown in the listing; nil for an episode resumed from the progress buffer that
    /// the current listing does not show.
    @inlinable public var number: Int? { _read { yield fields.number } }
    /// The listing's entry for it.
    @inlinable public var entry: ListingItem { _read { yield fields.entry } }
    /// The feed it belongs to (the listing's key), or `previews:<term>` for music previews.
    @inlinable public var feed: String { _read { yield fields.feed } }
    /// The podcast's title; its folder in the Episodes directory is named after it.
    @inlinable public var podcastTitle: String { _read { yield fields.podcastTitle } }
    /// The Episodes directory an earlier run was downloading it into, where its partial file is;
    /// nil for the batch's own. A resumed episode goes on where it was going.
    @inlinable public var episodesDirectory: String? { _read { yield fields.episodesDirectory } }
    /// The file settings for this episode when they are not the batch's: a subscription's own
    /// template and companions, or those a resumed download was begun with.
    @inlinable public var library: LibrarySettings? { _read { yield fields.library } }
    /// The subscription whose update asks for it; nil for an episode asked for by hand. Its file
    /// is recorded as that subscription's, for `keep` and `unsubscribe --delete-files`.
    @inlinable public var subscription: Int? { _read { yield fields.subscription } }

    /// Creates an item.
    public init(
        number: Int?, entry: ListingItem, feed: String, podcastTitle: String, episodesDirectory: String? = nil,
        library: LibrarySettings? = nil, subscription: Int? = nil
    ) {
        fields = Fields(
            number: number, entry: entry, feed: feed, podcastTitle: podcastTitle, episodesDirectory: episodesDirectory, library: library,
            subscription: subscription)
    }

    public static func == (left: DownloadItem, right: DownloadItem) -> Bool {
        left.fields === right.fields
            || (left.number == right.number && left.entry == right.entry && left.feed == right.feed
                && left.podcastTitle == right.podcastTitle && left.episodesDirectory == right.episodesDirectory
                && left.library == right.library && left.subscription == right.subscription)
    }

    /// The episode `record` is about, numbered as in `listing` when it shows it.
    public init(resuming record: DownloadRecord, listing: Listing?) {
        let listed = listing.flatMap { listing in
            listing.source.feedKey == record.feed ? listing.items.first { $0.identity == record.identity } : nil
        }
        let entry = ListingItem(
            number: listed?.number ?? 0, identity: record.identity, title: record.title, enclosureURL: record.url,
            enclosureType: record.mediaType, enclosureLength: record.enclosureLength, published: record.published,
            guid: record.guid, integrity: record.integrity)
        self.init(
            number: listed?.number, entry: entry, feed: record.feed, podcastTitle: record.podcastTitle,
            episodesDirectory: record.episodesDirectory, library: record.library, subscription: record.subscription)
    }

    /// The episode this is.
    public var key: EpisodeKey { EpisodeKey(feed: feed, identity: entry.identity) }

    /// How messages name the episode: `episode 3 (Title)`, or `"Title" of Podcast` without a
    /// number (an update's episodes come from many podcasts).
    public var label: String {
        number.map { "episode \($0) (\(entry.title))" } ?? "\"\(entry.title)\" of \(podcastTitle)"
    }

    /// The items `numbers` of `listing`, in the order given.
    public static func items(_ numbers: [Int], of listing: Listing) -> [DownloadItem] {
        let feed = listing.source.feedKey
        let podcast = switch listing.source {
        case .feed(_, let title): title
        case .previews: "Previews"
        }
        let entries = listing.items
        // Stored listings hold items 1...n in order, so number n is at n - 1; a table by number
        // is built only for one that does not.
        let inOrder = entries.indices.allSatisfy { entries[$0].number == $0 + 1 }
        let byNumber = inOrder ? [:] : Dictionary(entries.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        return numbers.compactMap { number in
            let entry = inOrder ? (entries.indices.contains(number - 1) ? entries[number - 1] : nil) : byNumber[number]
            return entry.map { DownloadItem(number: number, entry: $0, feed: feed, podcastTitle: podcast) }
        }
    }
}

extension DownloadRecord {
    /// The Episodes directory the download goes into: the one holding the `.partial` folder its
    /// partial file is in; nil when it has no partial file there.
    var episodesDirectory: String? {
        guard let components = resume.partialPath?.split(separator: "/", omittingEmptySubsequences: false),
            components.count >= 3, components[components.count - 2] == ".partial"
        else { return nil }
        let directory = components.dropLast(2).joined(separator: "/")
        return directory.isEmpty ? "/" : directory
    }

    /// A new record (state `queued`) of `item`'s episode, whose media file is at `url`.
    init(queuing item: DownloadItem, url: String) {
        self.init(
            feed: item.feed, identity: item.entry.identity, podcastTitle: item.podcastTitle, title: item.entry.title,
            url: url, mediaType: item.entry.enclosureType, published: item.entry.published)
        guid = item.entry.guid
        enclosureLength = item.entry.enclosureLength
        integrity = item.entry.integrity
        subscription = item.subscription
    }
}

/// How one asked-for episode ended.
public struct DownloadResult: Sendable, Equatable {
    /// The contract's states, and `cancelled` for an episode `podcast cancel` withdrew.
    public enum State: String, Sendable, CaseIterable {
        case downloaded, skipped, failed, paused, cancelled
    }

    /// The item.
    public var item: DownloadItem
    /// How it ended.
    public var state: State
    /// The finished file, when there is one.
    public var path: String?
    /// Bytes fetched in this run (more than the file when attempts were repeated, fewer when it
    /// was resumed).
    public var bytes: Int64
    /// Why it failed or was skipped, one line; nil when it was downloaded.
    public var error: String?
    /// The finished file's size, for a downloaded episode.
    public var fileSize: Int64?

    /// Creates a result.
    public init(item: DownloadItem, state: State, path: String?, bytes: Int64, error: String?, fileSize: Int64? = nil) {
        self.item = item
        self.state = state
        self.path = path
        self.bytes = bytes
        self.error = error
        self.fileSize = fileSize
    }

    /// Why an episode without a media file is skipped: there is nothing to download, and asking
    /// again changes nothing, so it is no failure.
    public static let noMedia = "the feed gives no media file for this episode (show notes only); nothing to download"

    /// True when the episode is where it was asked to be: downloaded, found already there, or
    /// without a media file to download.
    public var succeeded: Bool {
        state == .downloaded || state == .skipped
    }
}

/// What a running batch tells its caller, in order, on the caller's thread.
public enum DownloadUpdate: Sendable, Equatable {
    /// An episode started downloading.
    case started(DownloadItem)
    /// Where every running episode stands (at most four times a second).
    case progress([(item: DownloadItem, progress: TransferProgress)])
    /// An episode ended.
    case finished(DownloadResult)
    /// Something the user should know about an episode that goes on (one line).
    case warning(DownloadItem, String)
    /// An episode failed for now and is tried again at `until`.
    case retrying(DownloadItem, until: ContinuousClock.Instant, reason: String)
    /// Something the user should know about the batch as a whole (one line).
    case notice(String)

    public static func == (lhs: DownloadUpdate, rhs: DownloadUpdate) -> Bool {
        switch (lhs, rhs) {
        case (.started(let a), .started(let b)): a == b
        case (.finished(let a), .finished(let b)): a == b
        case (.warning(let a, let x), .warning(let b, let y)): a == b && x == y
        case (.retrying(let a, let t, let x), .retrying(let b, let u, let y)): a == b && t == u && x == y
        case (.progress(let a), .progress(let b)): a.map(\.item) == b.map(\.item) && a.map(\.progress) == b.map(\.progress)
        case (.notice(let a), .notice(let b)): a == b
        default: false
        }
    }
}

extension Listing.Source {
    /// The key this listing's downloads are recorded under: the feed URL, or `previews:<term>`.
    public var feedKey: String {
        switch self {
        case .feed(let url, _): url
        case .previews(let term): "previews:" + term
        }
    }
}
