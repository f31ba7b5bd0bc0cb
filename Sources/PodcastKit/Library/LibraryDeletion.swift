import FoundationEssentials
import Glibc

/// Deleting episodes' files for `podcast delete`, `keep` and `unsubscribe --delete-files`: each
/// file goes only when `FileOwnership` says it is podcast's, unchanged, and the reason's own (keep
/// and unsubscribe remove only what that subscription's updates downloaded). What it deletes it
/// forgets; a deleted episode is remembered as deleted and marked done for its subscription, so
/// `update` does not download it again.
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
    private let ownership: FileOwnership

    /// Deletes through `store`'s records.
    public init(store: StateStore) {
        self.store = store
        self.ownership = FileOwnership(store: store)
    }

    /// Deletes the episodes `keys` name (chosen by the caller's filters: `podcast delete`), then
    /// rewrites their podcasts' playlists; `deleted` hears of each as it goes.
    public func delete(_ keys: [EpisodeKey], deleted: (DownloadRecord, Outcome) -> Void) throws -> [String] {
        let records = try keys.compactMap { key throws(StoreError) in try store.downloads.record(key) }.filter { $0.path != nil }
        var problems: [String] = []
        for record in records {
            let outcome = try deleteEpisode(record.key, for: .delete)
            problems += outcome.problems
            deleted(record, outcome)
        }
        for feed in Set(records.map(\.feed)).sorted() { problems += Playlist.refresh(feed: feed, store: store) }
        return problems
    }

    /// Deletes the episode `key`'s media file and companion files for `reason` and forgets them. An
    /// episode whose media file is not deleted (not podcast's for this reason, changed since, or
    /// the system refused) keeps its record and its companions. One that `keep` or `unsubscribe`
    /// finds changed since podcast wrote it is the user's now: it stops being the subscription's,
    /// so it is reported once, not at every update. Once the media file is gone the episode is
    /// forgotten whatever becomes of its companions (one that cannot go is a problem reported),
    /// so no record is left naming a deleted file.
    public func deleteEpisode(_ key: EpisodeKey, for reason: FileOwnership.Reason) throws -> Outcome {
        var outcome = Outcome()
        guard let record = try store.downloads.record(key), let path = record.path else { return outcome }
        switch try ownership.remove(path, for: reason) {
        case .removed(let bytes):
            outcome.files.append(path)
            outcome.bytes += bytes
        case .absent:
            break
        case .refused(let refusal):
            switch (refusal.cause, reason) {
            case (.changed, .keep), (.changed, .unsubscribe):
                try store.downloads.releaseFromSubscription(key)
                outcome.problems.append(refusal.message + "; it is yours now, and no longer counted as the subscription's")
            default:
                outcome.problems.append(refusal.message)
            }
            return outcome
        }
        // Companions before the record goes: whose they are follows their episode's record.
        do {
            try removeCompanions(try store.libraryFiles.files(of: key), for: reason, into: &outcome)
        } catch {
            outcome.problems.append("could not delete the companion files of \(record.title): \(error)")
        }
        try store.downloads.forgetDeleted(key)
        if let subscription = try store.subscriptions.find(url: key.feed) {
            try store.subscriptions.markEpisodesDone([key.identity], of: subscription.id)
        }
        return outcome
    }

    /// Deletes the covers and playlists podcast wrote for the feed `feed` for subscription
    /// `subscription`'s updates (`unsubscribe --delete-files`); those written for downloads asked
    /// for by hand are not its to delete, and are not even candidates.
    public func deletePodcastFiles(of feed: String, subscription: Int) throws -> Outcome {
        var outcome = Outcome()
        for file in try store.libraryFiles.podcastFiles(of: feed) where file.subscription == subscription {
            if try remove(file.path, for: .unsubscribe(subscription: subscription), into: &outcome) {
                try store.libraryFiles.forget(path: file.path)
            }
        }
        return outcome
    }

    /// Deletes the file a re-fetched episode `key` had at `earlier.path` before its new copy went
    /// in under another name, as `earlier` recorded it (the store names the new copy now), and its
    /// companions; problems, one line each.
    func removeReplaced(_ earlier: RecordedFile, of key: EpisodeKey) -> [String] {
        var outcome = Outcome()
        do {
            if case .refused(let refusal) = try ownership.removeEarlierCopy(earlier, of: key) { outcome.problems.append(refusal.message) }
            try removeCompanions(try store.libraryFiles.files(of: key), for: .refetch(key), into: &outcome)
        } catch {
            outcome.problems.append("could not remove the earlier copy \(earlier.path): \(error)")
        }
        return outcome.problems
    }

    /// Deletes and forgets the companion files `files` that are `reason`'s own.
    private func removeCompanions(_ files: [LibraryFile], for reason: FileOwnership.Reason, into outcome: inout Outcome) throws {
        for file in files where try remove(file.path, for: reason, into: &outcome) {
            try store.libraryFiles.forget(path: file.path)
        }
    }

    /// Removes `path` through `FileOwnership`; true when it is gone (also when it already was).
    /// Folders stay, even when empty: podcast cannot tell one it made from one the user made
    /// (with their own mode or group for a media server).
    private func remove(_ path: String, for reason: FileOwnership.Reason, into outcome: inout Outcome) throws -> Bool {
        switch try ownership.remove(path, for: reason) {
        case .absent:
            return true
        case .removed(let bytes):
            outcome.files.append(path)
            outcome.bytes += bytes
            return true
        case .refused(let refusal):
            outcome.problems.append(refusal.message)
            return false
        }
    }
}
