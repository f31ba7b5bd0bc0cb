import Glibc
import PodcastPlatform

/// Partial files that no record names any more (a reset or lost state store, a crash between
/// deleting a record and its file, an older layout's names) can never be continued: nothing
/// would ever remove them. A batch sweeps its partial folder of them before it starts, and of the
/// temporary files (tagged copies, heads for TagLib) that a process killed meanwhile left there.
enum OrphanedPartials {
    /// A partial file younger than this is left alone, whatever the store says: belt and braces
    /// against a process that is creating one right now.
    static let minimumAge: Int = 60

    /// Removes the files in `directory` that `store` names in no record; returns how many and
    /// how many bytes. The folder is listed before the store is read: a claim records a partial
    /// file's path before the file exists, so a file listed here whose record is not found yet
    /// cannot belong to a claim in progress.
    static func sweep(_ directory: String, store: StateStore, now: time_t = time(nil)) throws(StoreError) -> (files: Int, bytes: Int64) {
        guard let names = try? FileIO.names(in: directory) else { return (0, 0) }
        var removed = (files: 0, bytes: Int64(0))
        func remove(_ path: String, olderThan age: Int) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, now - info.st_mtim.tv_sec >= age else { return }
            // Ownership: a partial file in podcast's `.partial` folder that no record names.
            if unlink(path) == 0 {
                removed.files += 1
                removed.bytes += Int64(info.st_size)
            }
        }
        for name in names where ProcessTemporary.isOrphaned(name: name) { remove(directory + "/" + name, olderThan: 0) }
        let candidates = names.filter { DownloadBatch.isPartialName($0) }.map { directory + "/" + $0 }
        guard !candidates.isEmpty else { return removed }
        let named = try store.downloads.partialPaths()
        for path in candidates where !named.contains(path) { remove(path, olderThan: minimumAge) }
        return removed
    }
}
