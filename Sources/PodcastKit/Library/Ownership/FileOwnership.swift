import Glibc

/// The one answer to "may podcast delete, or write over, the file at this path?", and the one
/// place that does it. A file is podcast's only if the store records that podcast wrote it, it is
/// still the regular file podcast wrote (same size, same SHA-256: the user has not changed it, and
/// it is no symbolic link put in its place), and the reason at hand is its own: `keep` of a
/// subscription removes only what that subscription's updates downloaded, a companion is rewritten
/// only for its own episode, a playlist only for its own podcast. Everything else is someone
/// else's and is left alone, with one line saying so.
///
/// Every delete and every rename over an existing file in the Episodes directory goes through here;
/// the other `unlink`s in Sources remove files podcast made under names only it uses (partial files,
/// `ProcessTemporary` files), each with a comment saying so.
public struct FileOwnership {
    /// Why podcast means to remove or replace a file.
    public enum Reason: Sendable, Equatable {
        /// `podcast delete`: the user named the episodes; any file podcast wrote for them.
        case delete
        /// `keep N` of subscription `id`: only files its updates downloaded.
        case keep(subscription: Int)
        /// `unsubscribe --delete-files` of subscription `id`: only files its updates downloaded.
        case unsubscribe(subscription: Int)
        /// An episode fetched again (`--force`, or found damaged): its own earlier media file and companions.
        case refetch(EpisodeKey)
        /// An episode's companion written again: that episode's own companion of that kind.
        case companion(EpisodeKey, LibraryFile.Kind)
        /// A podcast's cover or playlist written again: that feed's own.
        case podcastFile(feed: String, LibraryFile.Kind)
    }

    /// What is at a path, to the reason at hand.
    public enum Verdict: Sendable, Equatable {
        /// Nothing is there.
        case absent
        /// podcast's, unchanged, and the reason is its own.
        case owned(OwnedFile)
        /// Someone else's, or not for this reason: why, one line naming the path.
        case refused(String)
    }

    /// What a removal did.
    public enum Removal: Sendable, Equatable {
        /// Removed; it had this many bytes.
        case removed(bytes: Int64)
        /// Nothing was there.
        case absent
        /// Left in place: why, one line.
        case refused(String)
    }

    let store: StateStore

    /// Decides by `store`'s records.
    public init(store: StateStore) {
        self.store = store
    }

    /// What the file at `path` is to `reason`, by the store's record of it.
    public func verdict(_ path: String, for reason: Reason) throws -> Verdict {
        try verdict(path, recorded: { () throws -> OwnedFile? in try store.ownedFile(path: path) }, for: reason)
    }

    /// What the file at `path` is to `reason`, by `recorded`: the store's record, or one read before
    /// the store moved on (an episode fetched again under a new name, whose record now names that).
    func verdict(_ path: String, recorded: () throws -> OwnedFile?, for reason: Reason) throws -> Verdict {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else { throw SystemError.last("lstat", path: path) }
            return .absent
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            let what = (info.st_mode & S_IFMT) == S_IFLNK ? "a symbolic link" : "not a regular file"
            return .refused("left \(path) in place: it is \(what), so podcast did not write it")
        }
        guard let owned = try recorded(), owned.path == path else {
            return .refused("left \(path) in place: podcast did not write it")
        }
        if let refusal = Self.refusal(of: owned, for: reason) { return .refused("left \(path) in place: \(refusal)") }
        let size = Int64(info.st_size)
        if let bytes = owned.bytes, size != bytes {
            return .refused("left \(path) in place: it has \(size) bytes, not the \(bytes) podcast wrote, so it was changed since")
        }
        guard owned.bytes != nil || owned.sha256 != nil else {
            return .refused("left \(path) in place: podcast has no size or digest of it to tell whether it changed")
        }
        if let recorded = owned.sha256 {
            let found = SHA2.hex(try SHA2.digest(ofFile: path, .sha256))
            guard found == recorded else {
                return .refused("left \(path) in place: its contents changed since podcast wrote it")
            }
        }
        return .owned(owned)
    }

    /// Why `reason` is not `file`'s own, or nil when it is. Pure: the rule itself.
    static func refusal(of file: OwnedFile, for reason: Reason) -> String? {
        switch reason {
        case .delete:
            return nil
        case .keep(let id), .unsubscribe(let id):
            guard file.subscription == id else {
                return file.subscription == nil
                    ? "it was downloaded by hand, not by this subscription's updates"
                    : "it was downloaded by another subscription's updates"
            }
            return nil
        case .refetch(let key):
            switch file.role {
            case .media(key): return nil
            case .companion(let owner, _) where owner == key: return nil
            default: return "it is not this episode's earlier file"
            }
        case .companion(let key, let kind):
            return file.role == .companion(key, kind) ? nil : "it is not this episode's \(kind.label)"
        case .podcastFile(let feed, let kind):
            return file.role == .podcastFile(feed: feed, kind) ? nil : "it is not this podcast's \(kind.label)"
        }
    }

    /// Removes the file at `path` if it is podcast's for `reason` (by `recorded`, when the store no
    /// longer names it). Its record stays for the caller to forget: an episode's deletion is also
    /// remembered (`StateStore.forgetDeletedDownload`).
    public func remove(_ path: String, for reason: Reason, recorded: OwnedFile? = nil) throws -> Removal {
        let found = try recorded.map { file in try verdict(path, recorded: { file }, for: reason) } ?? verdict(path, for: reason)
        switch found {
        case .absent:
            return .absent
        case .refused(let why):
            return .refused(why)
        case .owned:
            let size = FileIO.regularFileSize(path) ?? 0
            guard unlink(path) == 0 || errno == ENOENT else {
                return .refused("could not delete \(path): \(SystemError.last("unlink", path: path).reason); delete it yourself")
            }
            return .removed(bytes: size)
        }
    }

    /// Puts the new file `source` (one podcast just made) at `destination`: by a rename over what is
    /// there only when that is podcast's for `reason`, else only where nothing is. Returns why it
    /// was not placed (`source` is then left for the caller to remove), or nil when it was.
    public func place(_ source: String, at destination: String, for reason: Reason) throws -> String? {
        switch try verdict(destination, for: reason) {
        case .refused(let why):
            return why
        case .owned:
            guard rename(source, destination) == 0 else { throw SystemError.last("rename", path: destination) }
            return nil
        case .absent:
            return try FileIO.moveWithoutReplacing(source, to: destination) ? nil : "left \(destination) in place: podcast did not write it"
        }
    }
}
