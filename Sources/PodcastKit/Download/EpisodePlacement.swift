import Glibc

/// Where a batch's finished episodes go: each episode's folder and file name (its `EpisodeFiling`),
/// and the move that gives a finished file its name without ever replacing another file.
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

    /// The Episodes directory `item` goes into.
    func directory(for item: DownloadItem) -> String {
        item.episodesDirectory ?? episodesDirectory
    }

    /// Makes `folder` (and its parents) unless this batch already did.
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

    /// Gives `download`'s finished file at `partial` (the partial file, or its tagged copy) the first of its preferred name, `name (2)`, `name (3)`, …
    /// that is free (or this episode's own, by `store`: a file fetched again replaces its old copy
    /// at once, by a rename). The move never replaces another file, so two processes finishing
    /// episodes with the same name cannot overwrite each other's file.
    func moveIntoPlace(_ download: EpisodeDownload, from partial: String, store: StateStore) throws -> String {
        let item = download.item
        var attempt = 1
        while true {
            let name = download.filing.name(suffix: attempt == 1 ? "" : " (\(attempt))")
            let path = download.filing.path(of: name)
            attempt += 1
            let owner = try store.downloadOwning(path: path)
            if owner == item.key {
                guard rename(partial, path) == 0 else { throw SystemError.last("rename", path: path) }
                return path
            }
            guard owner == nil, try store.libraryFileOwner(path: path) == nil else { continue }
            if try FileIO.moveWithoutReplacing(partial, to: path) { return path }
        }
    }
}
