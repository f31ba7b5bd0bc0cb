import Glibc

/// Where a batch's finished episodes go: each episode's folder and file name (its `EpisodeFiling`),
/// and the move that gives a finished file its name without ever replacing another file.
struct EpisodePlacement {
    /// The batch's Episodes directory (an episode resumed from elsewhere names its own).
    let episodesDirectory: String
    /// Folders made in this batch, so a thousand episodes of one podcast make it once.
    private var madeFolders: Set<String> = []

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

    /// Gives `download`'s finished file at `partial` (the partial file, or its tagged copy) the first
    /// of its preferred name, `name (2)`, `name (3)`, … that is free: nothing is there and no other
    /// episode's file podcast placed has the same name before its extension, so companions named
    /// after it never meet another episode's. The one exception is this episode's own earlier copy,
    /// which a file fetched again replaces at once by a rename, when `FileOwnership` finds it
    /// unchanged. The move never replaces any other file, so two processes finishing episodes with
    /// the same name cannot overwrite each other's file, and a file the user put there stays.
    func moveIntoPlace(_ download: EpisodeDownload, from partial: String, store: StateStore) throws -> String {
        let ownership = FileOwnership(store: store)
        var attempt = 1
        while true {
            let name = download.filing.name(suffix: attempt == 1 ? "" : " (\(attempt))")
            let path = download.filing.path(of: name)
            attempt += 1
            if try store.downloadOwning(path: path) == download.item.key {
                if try ownership.place(partial, at: path, for: .refetch(download.item.key)) == nil { return path }
                continue
            }
            guard try store.recordedFile(path: path) == nil,
                try !store.hasMediaFile(stem: Self.stem(of: path), excluding: download.item.key)
            else { continue }
            if try FileIO.moveWithoutReplacing(partial, to: path) { return path }
        }
    }

    /// `path` without its extension: what companions are named after.
    static func stem(of path: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        return String(path[..<(path[slash...].lastIndex(of: ".") ?? path.endIndex)])
    }
}
