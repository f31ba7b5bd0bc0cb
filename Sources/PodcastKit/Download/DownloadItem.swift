/// One episode asked for: its number in the listing, what to fetch, and whose it is.
public struct DownloadItem: Sendable, Equatable {
    /// The number shown in the listing.
    public var number: Int
    /// The listing's entry for it.
    public var entry: ListingItem
    /// The feed it belongs to (the listing's key), or `previews:<term>` for music previews.
    public var feed: String
    /// The podcast's title; its folder in the Episodes directory is named after it.
    public var podcastTitle: String

    /// Creates an item.
    public init(number: Int, entry: ListingItem, feed: String, podcastTitle: String) {
        self.number = number
        self.entry = entry
        self.feed = feed
        self.podcastTitle = podcastTitle
    }

    /// The items `numbers` of `listing`, in the order given.
    public static func items(_ numbers: [Int], of listing: Listing) -> [DownloadItem] {
        let (feed, podcast) = switch listing.source {
        case .feed(let url, let title): (url, title)
        case .previews(let term): ("previews:" + term, "Previews")
        }
        let byNumber = Dictionary(listing.items.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        return numbers.compactMap { number in
            byNumber[number].map {
                DownloadItem(number: number, entry: $0, feed: feed, podcastTitle: podcast)
            }
        }
    }
}

/// How one asked-for episode ended.
public struct DownloadResult: Sendable, Equatable {
    /// The contract's states.
    public enum State: String, Sendable {
        case downloaded, skipped, failed, paused
    }

    /// The item.
    public var item: DownloadItem
    /// How it ended.
    public var state: State
    /// The finished file, when there is one.
    public var path: String?
    /// Bytes fetched in this run.
    public var bytes: Int64
    /// Why it failed or was skipped, one line; nil when it was downloaded.
    public var error: String?
}

/// What a running batch tells its caller, in order, on the caller's thread.
public enum DownloadUpdate: Sendable, Equatable {
    /// An episode started downloading.
    case started(DownloadItem)
    /// Where every running episode stands (at most four times a second).
    case progress([(item: DownloadItem, progress: TransferProgress)])
    /// An episode ended.
    case finished(DownloadResult)

    public static func == (lhs: DownloadUpdate, rhs: DownloadUpdate) -> Bool {
        switch (lhs, rhs) {
        case (.started(let a), .started(let b)): a == b
        case (.finished(let a), .finished(let b)): a == b
        case (.progress(let a), .progress(let b)): a.map(\.item) == b.map(\.item) && a.map(\.progress) == b.map(\.progress)
        default: false
        }
    }
}
