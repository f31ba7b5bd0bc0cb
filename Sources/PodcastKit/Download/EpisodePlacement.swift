import Glibc

/// Where a batch's finished episodes go: each podcast's folder in the Episodes directory, each
/// episode's file name, and the move that gives a finished file its name without ever replacing
/// another file.
struct EpisodePlacement {
    /// The batch's Episodes directory (an episode resumed from elsewhere names its own).
    let episodesDirectory: String
    /// Folders made in this batch, so a thousand episodes of one podcast make it once.
    private var madeFolders: Set<String> = []
    /// Whether each podcast folder existed when the batch first looked (see `folderExisted`).
    private var foldersFound: [String: Bool] = [:]

    init(episodesDirectory: String) {
        self.episodesDirectory = episodesDirectory
    }

    /// The podcast's folder for `item`.
    func folder(for item: DownloadItem) -> String {
        (item.episodesDirectory ?? episodesDirectory) + "/" + EpisodeFileName.folder(podcastTitle: item.podcastTitle)
    }

    /// `item`'s file name, with `suffix` (` (2)`…) before its extension.
    func fileName(for item: DownloadItem, suffix: String) -> String {
        EpisodeFileName.file(
            title: item.entry.title, published: item.entry.published, mediaType: item.entry.enclosureType,
            url: item.entry.enclosureURL ?? "", suffix: suffix)
    }

    /// The file at `item`'s place and its size, when one is there whose size fits the length the
    /// feed announces (or is not empty, when it announces none): a finished download the store
    /// may not know of.
    func placedFile(for item: DownloadItem) -> (path: String, size: Int64)? {
        let path = folder(for: item) + "/" + fileName(for: item, suffix: "")
        guard let size = FileIO.regularFileSize(path), item.entry.enclosureLength.map({ $0 == size }) ?? (size > 0) else { return nil }
        return (path, size)
    }

    /// Makes `folder` unless this batch already did.
    mutating func makeFolder(_ folder: String) throws(SystemError) {
        if madeFolders.insert(folder).inserted { try FileIO.makeDirectory(folder, mode: 0o755) }
    }

    /// True when `folder` existed the first time the batch looked: only then can it hold finished
    /// files the store does not know. One look per folder, not a look per episode for a file that
    /// cannot be there.
    mutating func folderExisted(_ folder: String) -> Bool {
        if let known = foldersFound[folder] { return known }
        let exists = access(folder, F_OK) == 0
        foldersFound[folder] = exists
        return exists
    }

    /// Gives `download`'s partial file the first of its preferred name, `name (2)`, `name (3)`, …
    /// that is free (or this episode's own, by `store`). The move never replaces an existing file,
    /// so two processes finishing episodes with the same name cannot overwrite each other's file.
    func moveIntoPlace(_ download: EpisodeDownload, store: StateStore) throws -> String {
        let (partial, item) = (download.partialPath, download.item)
        var attempt = 1
        while true {
            let path = attempt == 1 ? download.preferredPath : download.folder + "/" + fileName(for: item, suffix: " (\(attempt))")
            attempt += 1
            let owner = try store.downloadOwning(path: path)
            if owner == item.key {
                guard rename(partial, path) == 0 else { throw SystemError.last("rename", path: path) }
                return path
            }
            guard owner == nil else { continue }
            if try FileIO.moveWithoutReplacing(partial, to: path) { return path }
        }
    }
}
