import Glibc
import PodcastPlatform

/// Where a batch's finished episodes go: each episode's folder and file name (its `EpisodeFiling`),
/// and the move that gives a finished file its name without ever replacing another file.
struct EpisodePlacement {
    /// The batch's Episodes directory (an episode resumed from elsewhere names its own).
    let episodesDirectory: String
    /// Folders made in this batch, so a thousand episodes of one podcast make it once.
    private var madeFolders: Set<String> = []
    /// The names the batch's unfinished episodes hold, taken in the batch's order.
    private var holds = NameHolds()

    /// False when the Episodes directory is on a file system in memory, where syncs are no-ops.
    private(set) var syncsToDisk = true

    init(episodesDirectory: String) {
        self.episodesDirectory = episodesDirectory
    }

    /// Where unfinished data lives: hidden, inside the Episodes directory (same file system, so
    /// finishing is a rename), never under a final name.
    var partialDirectory: String { Self.partialDirectory(in: episodesDirectory) }

    /// The partial folder of the Episodes directory `episodesDirectory`.
    static func partialDirectory(in episodesDirectory: String) -> String { episodesDirectory + "/.partial" }

    /// Makes the partial folder, learns whether its file system syncs to a disk, and removes the
    /// partial files there that no record names (`OrphanedPartials`), telling `report`.
    mutating func preparePartialDirectory(store: StateStore, report: (DownloadUpdate) -> Void) throws(EpisodesDirectoryError) {
        do {
            try FileIO.makeDirectory(partialDirectory, mode: 0o755)
        } catch {
            throw EpisodesDirectoryError(directory: episodesDirectory, error: error)
        }
        syncsToDisk = !FileIO.isInMemory(partialDirectory)
        do {
            let removed = try OrphanedPartials.sweep(partialDirectory, store: store)
            if removed.files > 0 {
                report(.notice("removed \(removed.files) partial file\(removed.files == 1 ? "" : "s") no download can continue "
                    + "(\(ByteCount.text(removed.bytes))) from \(partialDirectory)"))
            }
        } catch {
            report(.notice("could not look for partial files no download can continue (\(error)); they stay in \(partialDirectory)"))
        }
    }

    /// The Episodes directory `item` goes into.
    func directory(for item: DownloadItem) -> String {
        item.episodesDirectory ?? episodesDirectory
    }

    /// Makes `folder` (and its parents) unless this batch already did.
    mutating func makeFolder(_ folder: String) throws(SystemError) {
        if madeFolders.insert(folder).inserted { try FileIO.makeDirectory(folder, mode: 0o755) }
    }

    /// Holds for `download` (just admitted, in the batch's order) the first of its names that is
    /// free and that no episode admitted before it holds: two episodes of the batch that want the
    /// same name get `name` and `name (2)` in the order they were listed, whichever finishes first.
    mutating func hold(_ download: EpisodeDownload, store: StateStore) throws {
        _ = try holds.hold(for: download.id, candidate: { Self.path(download, attempt: $0) }) { path in
            try Self.availability(of: path, for: download.item.key, store: store) != .taken
        }
    }

    /// Episode `id` ended (placed, failed, paused or cancelled): its name is free for the others.
    mutating func release(_ id: Int) {
        holds.release(id)
    }

    /// Gives `download`'s finished file at `partial` (the partial file, or its tagged copy) the first
    /// of its preferred name, `name (2)`, `name (3)`, … that is free (`availability`) and that no
    /// other unfinished episode of the batch holds (`hold`), so which episode gets which name
    /// does not depend on which finishes first. The one exception to "free" is this episode's own
    /// earlier copy, which a file fetched again replaces at once by a rename, when
    /// `FileOwnership` finds it unchanged. The move never replaces any other file, so two
    /// processes finishing episodes with the same name cannot overwrite each other's file, and
    /// a file the user put there stays.
    func moveIntoPlace(_ download: EpisodeDownload, from partial: String, store: StateStore) throws -> String {
        let ownership = FileOwnership(store: store)
        var attempt = 1
        while true {
            let path = Self.path(download, attempt: attempt)
            attempt += 1
            guard !holds.isHeld(path, byOtherThan: download.id) else { continue }
            switch try Self.availability(of: path, for: download.item.key, store: store) {
            case .own:
                if try ownership.place(partial, at: path, for: .refetch(download.item.key)) == nil { return path }
            case .open:
                if try FileIO.moveWithoutReplacing(partial, to: path) { return path }
            case .taken:
                continue
            }
        }
    }

    /// Whether an episode's file may take a name.
    enum Availability: Equatable {
        /// The episode's own earlier copy is there (a file fetched again replaces it).
        case own
        /// Nothing is there, no file podcast placed has it, and no other episode's media file
        /// has the same name before its extension (so companions named after it never meet
        /// another episode's).
        case open
        /// Anything else: the name is another's.
        case taken
    }

    /// Whether the episode `key`'s file may take `path`, as the store and the disk say now.
    static func availability(of path: String, for key: EpisodeKey, store: StateStore) throws -> Availability {
        if try store.downloads.episode(owning: path) == key { return .own }
        guard try store.libraryFiles.recordedFile(path: path) == nil, try !store.libraryFiles.hasMediaFile(stem: stem(of: path), excluding: key),
            FileIO.stamp(ofName: path) == nil
        else { return .taken }
        return .open
    }

    /// `download`'s name at `attempt`: `name` for 1, `name (2)` for 2, and so on.
    private static func path(_ download: EpisodeDownload, attempt: Int) -> String {
        download.filing.path(of: download.filing.name(suffix: attempt == 1 ? "" : " (\(attempt))"))
    }

    /// `path` without its extension: what companions are named after.
    static func stem(of path: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        return String(path[..<(path[slash...].lastIndex(of: ".") ?? path.endIndex)])
    }
}
