import PodcastKit

/// The downloads a `<selection>` and its filters pick from the last listing, for the commands that
/// act on downloads (`pause`, `cancel`, `delete`, `verify`).
enum ListingSelection {
    /// The keys `words` and `filter` select from the last listing, or nil for every download (no
    /// words, or `all` among them, and no filter).
    static func keys(_ words: [String], filter: SelectionFilter, store: StateStore, verb: String) throws -> [EpisodeKey]? {
        // Filters alone narrow the whole listing.
        let words = words.isEmpty && !filter.isEmpty ? ["all"] : words
        guard !words.isEmpty, !words.contains(where: { $0.lowercased() == "all" }) || !filter.isEmpty else { return nil }
        guard let listing = try store.currentListing.load() else {
            throw UsageError("there is no listing to \(verb) from; give all, or run podcast episodes <feed> first")
        }
        return try listing.selectedItems(words, filter: filter, records: try store.downloads.records(feed: listing.source.feedKey)).map(\.key)
    }

    /// The number and title of every episode of the last listing, by key: what lines about
    /// episodes named by number call them.
    static func listed(in listing: Listing?) -> [EpisodeKey: (number: Int, title: String)] {
        guard let listing else { return [:] }
        let feed = listing.source.feedKey
        var listed: [EpisodeKey: (number: Int, title: String)] = [:]
        for item in listing.items { listed[EpisodeKey(feed: feed, identity: item.identity)] = (item.number, item.title) }
        return listed
    }
}
