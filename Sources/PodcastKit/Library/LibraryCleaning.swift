import Glibc
import PodcastPlatform

/// `podcast clean`: what no download can use any more. Partial files that no record names (a
/// killed process between deleting a record and its file, a reset store), temporary files a
/// killed process left beside companions and playlists, and records of finished files and
/// companions that are gone. A partial file a record names is kept: `podcast resume` continues it.
public struct LibraryCleaning {
    /// What cleaning removed.
    public struct Outcome: Sendable, Equatable {
        /// Partial and temporary files removed.
        public var files: [String] = []
        /// Their bytes.
        public var bytes: Int64 = 0
        /// Records forgotten because their files are gone: episodes' titles and companions' paths.
        public var records: [String] = []
    }

    let store: StateStore

    /// Cleaning through `store`'s records.
    public init(store: StateStore) {
        self.store = store
    }

    /// Cleans the Episodes directories `directories` (and every other one the records name).
    public func run(episodesDirectories directories: [String]) throws -> Outcome {
        var outcome = Outcome()
        let records = try store.downloads.all()
        let files = try store.libraryFiles.all()
        // Every Episodes directory a record knows of: partial files live in its `.partial` folder.
        var roots = Set(directories)
        for record in records { if let root = record.episodesDirectory { roots.insert(root) } }
        // Listed before the store is read: a claim records a partial file's path before the file
        // exists, so a `.part` listed here that no record names is orphaned, whatever its age.
        let listed = roots.sorted().flatMap { root in
            let partials = EpisodePlacement.partialDirectory(in: root)
            return ((try? FileIO.names(in: partials)) ?? []).map { (partials + "/" + $0, $0) }
        }
        let named = try store.downloads.partialPaths()
        for (path, name) in listed {
            // One an earlier version had TagLib tag in place (`.part.opus`) is orphaned once nobody has touched it for a while.
            let orphaned = (DownloadBatch.isPartialName(name) && !named.contains(path))
                || (DownloadBatch.isPartialName(name, extra: ".opus") && Self.age(path) >= OrphanedPartials.minimumAge)
                || ProcessTemporary.isOrphaned(name: name)
            if orphaned { remove(path, into: &outcome) }
        }
        // Temporary files beside companions and playlists, in every folder podcast wrote into.
        var folders = Set(records.compactMap { $0.path.map(FileIO.folder(of:)) })
        folders.formUnion(files.map { FileIO.folder(of: $0.path) })
        for folder in folders.sorted() {
            for name in (try? FileIO.names(in: folder)) ?? [] where ProcessTemporary.isOrphaned(name: name) {
                remove(folder + "/" + name, into: &outcome)
            }
        }
        for record in records where record.state == .downloaded {
            guard let path = record.path, access(path, F_OK) != 0 else { continue }
            try store.downloads.forgetDeleted(record.key)
            outcome.records.append(record.title)
        }
        for file in files where access(file.path, F_OK) != 0 {
            try store.libraryFiles.forget(path: file.path)
            outcome.records.append(file.path)
        }
        return outcome
    }

    private func remove(_ path: String, into outcome: inout Outcome) {
        let size = FileIO.regularFileSize(path) ?? 0
        // Ownership: only partial files in podcast's `.partial` folders and `ProcessTemporary` names, which podcast alone makes.
        guard unlink(path) == 0 else { return }
        outcome.files.append(path)
        outcome.bytes += size
    }

    /// Seconds since the file at `path` was last written.
    private static func age(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return time(nil) - info.st_mtim.tv_sec
    }
}
