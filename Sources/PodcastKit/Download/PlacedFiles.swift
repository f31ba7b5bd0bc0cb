import Glibc

/// Finished files the store has no record of (it was lost or reset), found where a download of a
/// listing's episodes would have put them, so `episodes` shows them downloaded, as `download`
/// then finds them.
public enum PlacedFiles {
    /// Records of the `listing`'s episodes whose file is in place in `episodesDirectory`, by
    /// identity; episodes `known` to the store are left to their record.
    public static func records(of listing: Listing, in episodesDirectory: String, known: [String: DownloadRecord]) -> [String: DownloadRecord] {
        guard case .feed(_, let title) = listing.source else { return [:] }
        let placement = EpisodePlacement(episodesDirectory: episodesDirectory)
        let items = DownloadItem.items(listing.items.map(\.number), of: listing)
        // One look for the podcast's folder: without it no episode can be in place.
        guard let first = items.first, access(placement.folder(for: first), F_OK) == 0 else { return [:] }
        var found: [String: DownloadRecord] = [:]
        for item in items where known[item.entry.identity] == nil && item.entry.enclosureURL != nil {
            guard let (path, size) = placement.placedFile(for: item) else { continue }
            var record = DownloadRecord(
                feed: item.feed, identity: item.entry.identity, podcastTitle: title, title: item.entry.title,
                url: item.entry.enclosureURL ?? "", mediaType: item.entry.enclosureType, published: item.entry.published)
            record.state = .downloaded
            record.path = path
            record.bytes = size
            found[item.entry.identity] = record
        }
        return found
    }
}
