import PodcastKit

/// The episodes a `<selection>` and its filters pick from a listing: for `download`, and for the
/// downloads `pause` and `cancel` stop.
enum ListingSelection {
    /// The items of `listing` that `words` select (`new` needs the store's records) and `filter` keeps.
    static func items(_ words: [String], filter: SelectionFilter, in listing: Listing, store: StateStore) throws -> [DownloadItem] {
        let new = words.contains { $0.lowercased().contains("new") }
            ? listing.newNumbers(records: try store.downloadRecords(feed: listing.source.feedKey)) : []
        let numbers = try Selection(words).numbers(inListingOf: listing.items.count, isNew: new.contains)
        let chosen = Set(try filter.apply(DownloadItem.items(numbers, of: listing).map(\.entry)).map(\.number))
        return DownloadItem.items(numbers.filter(chosen.contains), of: listing)
    }

    /// The keys `words` and `filter` select from the last listing, or nil for every download (no
    /// words, or `all` among them, and no filter).
    static func keys(_ words: [String], filter: SelectionFilter, store: StateStore, verb: String) throws -> [EpisodeKey]? {
        // Filters alone narrow the whole listing.
        let words = words.isEmpty && !filter.isEmpty ? ["all"] : words
        guard !words.isEmpty, !words.contains(where: { $0.lowercased() == "all" }) || !filter.isEmpty else { return nil }
        guard let listing = try store.currentListing() else {
            throw UsageError("there is no listing to \(verb) from; give all, or run podcast episodes <feed> first")
        }
        return try items(words, filter: filter, in: listing, store: store).map(\.key)
    }
}
