import FoundationEssentials
import Glibc

/// The one way podcast deletes files from the Episodes directory, for `keep`, `podcast delete` and
/// `unsubscribe --delete-files`: only files it recorded as its own (an episode's media file and
/// its companions, a podcast's cover and playlist), never a file the user put there, and never a
/// recorded file that has changed size since podcast wrote it (something else wrote over it).
/// What it deletes it forgets; a deleted episode is marked done for its subscription, so `update`
/// does not download it again.
public struct LibraryDeletion {
    /// What a deletion did.
    public struct Outcome: Sendable, Equatable {
        /// The files deleted.
        public var files: [String] = []
        /// Their bytes.
        public var bytes: Int64 = 0
        /// Files left in place and why, one line each, for the user.
        public var problems: [String] = []
    }

    let store: StateStore

    /// Deletes through `store`'s records.
    public init(store: StateStore) {
        self.store = store
    }

    /// Deletes the episodes `keys` name (every episode podcast has a file of, when nil) whose files
    /// podcast recorded, only those published more than `olderThanDays` days before `now` when
    /// that is given, then rewrites their podcasts' playlists; `deleted` hears of each as it goes.
    public func delete(
        _ keys: [EpisodeKey]?, olderThanDays: Int?, now: Date = Date(), deleted: (DownloadRecord, Outcome) -> Void
    ) throws -> [String] {
        var records = try keys.map { keys in try keys.compactMap { key throws(StoreError) in try store.downloadRecord(key) } }
            ?? store.downloadRecords()
        records = records.filter { $0.path != nil }
        if let days = olderThanDays {
            let files = records.map { KeepRule.File(identity: $0.feed + "\n" + $0.identity, path: $0.path ?? "", published: $0.published) }
            let old = Set(KeepRule.olderThan(files, days: days, now: now).map(\.identity))
            records = records.filter { old.contains($0.feed + "\n" + $0.identity) }
        }
        var problems: [String] = []
        for record in records {
            let outcome = try deleteEpisode(record.key)
            problems += outcome.problems
            deleted(record, outcome)
        }
        for feed in Set(records.map(\.feed)).sorted() { problems += Playlist.refresh(feed: feed, store: store) }
        return problems
    }

    /// Deletes the episode `key`'s media file and companion files and forgets them. An episode
    /// whose media file cannot be deleted keeps its record (and its companions).
    public func deleteEpisode(_ key: EpisodeKey) throws -> Outcome {
        var outcome = Outcome()
        guard let record = try store.downloadRecord(key), let path = record.path else { return outcome }
        let expected = record.state == .downloaded ? record.bytes : nil
        guard remove(path, expectedBytes: expected, into: &outcome) else { return outcome }
        for file in try store.libraryFiles(of: key) where remove(file.path, expectedBytes: file.bytes, into: &outcome) {
            try store.forgetLibraryFile(path: file.path)
        }
        try store.forgetDeletedDownload(key)
        if let subscription = try store.subscription(url: key.feed) {
            try store.markEpisodesDone([key.identity], of: subscription.id)
        }
        removeFolderIfEmpty(of: path)
        return outcome
    }

    /// Deletes the covers and playlists podcast wrote for the feed `feed`.
    public func deletePodcastFiles(of feed: String) throws -> Outcome {
        var outcome = Outcome()
        for file in try store.podcastFiles(of: feed) where remove(file.path, expectedBytes: nil, into: &outcome) {
            try store.forgetLibraryFile(path: file.path)
            removeFolderIfEmpty(of: file.path)
        }
        return outcome
    }

    /// Deletes the file at `path` (a re-fetched episode's old copy); problems, one line each.
    func removeFile(at path: String) -> [String] {
        var outcome = Outcome()
        _ = remove(path, expectedBytes: nil, into: &outcome)
        return outcome.problems
    }

    /// Deletes and forgets the companion files of `key`; problems, one line each.
    func removeCompanions(of key: EpisodeKey) -> [String] {
        var outcome = Outcome()
        do {
            for file in try store.libraryFiles(of: key) where remove(file.path, expectedBytes: file.bytes, into: &outcome) {
                try store.forgetLibraryFile(path: file.path)
            }
        } catch {
            outcome.problems.append("could not forget the companion files of \(key.identity): \(error)")
        }
        return outcome.problems
    }

    /// Removes `path` unless it changed size from `expectedBytes`; true when it is gone (also
    /// when it already was).
    private func remove(_ path: String, expectedBytes: Int64?, into outcome: inout Outcome) -> Bool {
        guard let size = FileIO.regularFileSize(path) else {
            if access(path, F_OK) == 0 {
                outcome.problems.append("left \(path) in place: it is not a regular file, so podcast did not write it")
                return false
            }
            return true
        }
        if let expectedBytes, expectedBytes != size {
            outcome.problems.append("left \(path) in place: it has \(size) bytes, not the \(expectedBytes) podcast wrote, so something else wrote over it")
            return false
        }
        guard unlink(path) == 0 || errno == ENOENT else {
            outcome.problems.append("could not delete \(path): \(SystemError.last("unlink", path: path).reason); delete it yourself")
            return false
        }
        outcome.files.append(path)
        outcome.bytes += size
        return true
    }

    /// Removes the folder holding `path` when nothing is left in it (a folder the user keeps
    /// anything in stays: rmdir refuses).
    private func removeFolderIfEmpty(of path: String) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        rmdir(String(path[..<slash]))
    }
}
