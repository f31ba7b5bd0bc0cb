import PodcastKit

/// The episodes `pause` and `cancel` stop: those a `<selection>` picks from the last listing.
enum ListingSelection {
    /// The keys `words` select, or nil for every download (no words, or `all` among them).
    static func keys(_ words: [String], store: StateStore, verb: String) throws -> [EpisodeKey]? {
        guard !words.isEmpty, !words.contains(where: { $0.lowercased() == "all" }) else { return nil }
        guard let listing = try store.currentListing() else {
            throw UsageError("there is no listing to \(verb) from; give all, or run podcast episodes <feed> first")
        }
        let numbers = try Selection(words).numbers(inListingOf: listing.items.count)
        return DownloadItem.items(numbers, of: listing).map(\.key)
    }
}
