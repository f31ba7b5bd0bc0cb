import Glibc

/// Finished files the store has no record of (it was lost or reset), found where a download of a
/// listing's episodes would have put them, so `episodes` shows them downloaded, as `download`
/// then finds them.
public enum PlacedFiles {
    /// Records of the `listing`'s episodes whose file is in place in `episodesDirectory`, named by
    /// `library`'s template, by identity; episodes `known` to the store are left to their record.
    public static func records(
        of listing: Listing, in episodesDirectory: String, library: LibrarySettings = LibrarySettings(), known: [String: DownloadRecord]
    ) -> [String: DownloadRecord] {
        guard case .feed(_, let title) = listing.source else { return [:] }
        let items = DownloadItem.items(listing.items.map(\.number), of: listing)
        var found: [String: DownloadRecord] = [:]
        var foldersSeen: [String: Bool] = [:]
        for item in items where known[item.entry.identity] == nil && item.entry.enclosureURL != nil {
            let values = NameValues(
                podcast: title, title: item.entry.title, published: item.entry.published, episode: nil, season: nil,
                guid: item.entry.guid,
                fileExtension: EpisodeFileName.fileExtension(mediaType: item.entry.enclosureType, url: item.entry.enclosureURL ?? ""))
            let filing = EpisodeFiling(directory: episodesDirectory, settings: library, values: values, show: nil, episode: nil)
            let name = filing.name()
            // One look per folder: without it no episode there can be in place.
            let folder = filing.folder(of: name)
            if foldersSeen[folder] == nil { foldersSeen[folder] = access(folder, F_OK) == 0 }
            let path = filing.path(of: name)
            guard foldersSeen[folder] == true, let size = FileIO.regularFileSize(path),
                item.entry.enclosureLength.map({ $0 == size }) ?? (size > 0)
            else { continue }
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
