import Glibc
import PodcastPlatform

/// The one answer to "may podcast delete, or write over, the file at this path?", and the one
/// place that does it. A file is podcast's only if the store records that podcast wrote it, it is
/// still the regular file podcast placed (the same file by device and inode, never a symbolic link
/// or a copy put in its place) and unchanged (its ctime as it was placed, or else its size and
/// SHA-256 as recorded), and the reason at hand is its own: `keep` of a
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

    /// Why a file is left alone: what kind of reason, and one line for the user naming the path.
    public struct Refusal: Sendable, Equatable, CustomStringConvertible {
        /// What kind of reason.
        public enum Cause: Sendable, Equatable {
            /// podcast did not write it (no record names it, or it is no regular file).
            case notPodcasts
            /// podcast wrote it, but for another episode, podcast, subscription or a hand download.
            case notForThisReason
            /// podcast wrote it, and it has changed since (or podcast kept no digest to tell).
            case changed
            /// It is podcast's, but the system refused to delete it.
            case failed
        }

        /// What kind of reason.
        public var cause: Cause
        /// One line for the user: `left <path> in place: <why>`.
        public var message: String

        /// Creates one.
        public init(_ cause: Cause, _ message: String) {
            self.cause = cause
            self.message = message
        }

        public var description: String { message }
    }

    /// What is at a path, to the reason at hand.
    public enum Verdict: Sendable, Equatable {
        /// Nothing is there.
        case absent
        /// podcast's, unchanged, and the reason is its own.
        case owned(RecordedFile)
        /// Someone else's, changed, or not for this reason.
        case refused(Refusal)
    }

    /// What a removal did.
    public enum Removal: Sendable, Equatable {
        /// Removed; it had this many bytes.
        case removed(bytes: Int64)
        /// Nothing was there.
        case absent
        /// Left in place, and why.
        case refused(Refusal)
    }

    let store: StateStore

    /// Decides by `store`'s records.
    public init(store: StateStore) {
        self.store = store
    }

    /// What the file at `path` is to `reason`, by the store's record of it.
    public func verdict(_ path: String, for reason: Reason) throws -> Verdict {
        try check(path, recorded: try store.libraryFiles.recordedFile(path: path), for: reason).verdict
    }

    /// What the file at `path` is to `reason`, by `recorded`, and which file was checked: the
    /// digest is taken of the file as opened (never through a symbolic link, never waiting on a
    /// FIFO someone put there), so a deletion can make sure the name still stands for that file.
    private func check(_ path: String, recorded: RecordedFile?, for reason: Reason) throws -> (verdict: Verdict, checked: FileIO.Stamp?) {
        func refused(_ cause: Refusal.Cause, _ why: String) -> (Verdict, FileIO.Stamp?) {
            (.refused(Refusal(cause, "left \(path) in place: \(why)")), nil)
        }
        // A file podcast cannot look at (its mode, its folder's, a failing disk) is one it cannot
        // vouch for: left alone and said, never the end of the whole `update` or `delete`.
        func cannotTell(_ error: SystemError) -> (Verdict, FileIO.Stamp?) {
            refused(.failed, "podcast could not read it to tell whether it wrote it (\(error.reason)); fix that, or delete it yourself")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else { return cannotTell(SystemError.last("lstat", path: path)) }
            return (.absent, nil)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return refused(.notPodcasts, "it is \((info.st_mode & S_IFMT) == S_IFLNK ? "a symbolic link" : "not a regular file"), so podcast did not write it")
        }
        guard let owned = recorded else { return refused(.notPodcasts, "podcast did not write it") }
        if let refusal = Self.refusal(of: owned, for: reason) { return refused(.notForThisReason, refusal) }
        if let bytes = owned.bytes, Int64(info.st_size) != bytes {
            return refused(.changed, "it has \(info.st_size) bytes, not the \(bytes) podcast wrote, so it was changed since")
        }
        // The file podcast placed, its ctime as it was then: nothing has written to it, renamed it
        // or changed its mode since, so reading it whole for its digest would tell nothing more
        // (`delete` of 8 × 64 MiB: 0.86 s with the digest, 0.13 s without).
        let now = FileIO.Stamp(info)
        if let placed = owned.stamp, placed == now { return (.owned(owned), now) }
        // A size alone cannot tell an edit that kept it (a fixed typo in a tag): only the digest can.
        guard let digest = owned.sha256 else {
            return refused(.changed, "podcast kept no digest of it (an older version wrote it), so it cannot tell whether it changed")
        }
        let read: (stamp: FileIO.Stamp, size: Int64, sha256: String)?
        do {
            read = try Self.digest(ofRegularFile: path)
        } catch {
            return cannotTell(error)
        }
        guard let opened = read else {
            return refused(.notPodcasts, "it is no longer a regular file, so podcast did not write it")
        }
        // The same bytes in another file (a copy in a folder linked in place of podcast's, a file
        // moved there) are not the file podcast wrote.
        if let placed = owned.stamp, !placed.isSameFile(as: opened.stamp) {
            return refused(.changed, "it is not the file podcast placed there (a copy, or a file moved there)")
        }
        if let bytes = owned.bytes, opened.size != bytes {
            return refused(.changed, "it has \(opened.size) bytes, not the \(bytes) podcast wrote, so it was changed since")
        }
        guard opened.sha256 == digest else { return refused(.changed, "its contents changed since podcast wrote it") }
        return (.owned(owned), opened.stamp)
    }

    /// The SHA-256 of the regular file at `path`, with its size and stamp as opened; nil when
    /// what is there now is a symbolic link or no regular file.
    private static func digest(ofRegularFile path: String) throws(SystemError) -> (stamp: FileIO.Stamp, size: Int64, sha256: String)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ELOOP || errno == ENXIO || errno == ENOENT { return nil }
            throw SystemError.last("open", path: path)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SystemError.last("fstat", path: path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var hasher = SHA2(.sha256)
        try FileIO.read(descriptor: descriptor, path: path, pieceSize: 256 * 1024) { piece in
            hasher.update(piece)
            return true
        }
        return (FileIO.Stamp(info), Int64(info.st_size), SHA2.hex(hasher.finish()))
    }

    /// Why `reason` is not `file`'s own, or nil when it is. Pure: the rule itself.
    static func refusal(of file: RecordedFile, for reason: Reason) -> String? {
        switch reason {
        case .delete:
            return nil
        case .keep(let id), .unsubscribe(let id):
            guard file.subscription == id else {
                return file.subscription == nil
                    ? "podcast wrote it for a download asked for by hand, not for this subscription's updates"
                    : "podcast wrote it for another subscription's updates"
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

    /// Removes the file at `path` if it is podcast's for `reason`. Its record stays for the caller
    /// to forget: an episode's deletion is also remembered (`DownloadRecords.forgetDeleted`).
    public func remove(_ path: String, for reason: Reason) throws -> Removal {
        try remove(path, checked: try check(path, recorded: try store.libraryFiles.recordedFile(path: path), for: reason))
    }

    /// Removes the earlier copy of an episode fetched again under a new name, as `earlier` (read
    /// before the new copy's record replaced it) describes it: only while no record names that
    /// path again (another episode may have taken the free name meanwhile).
    public func removeEarlierCopy(_ earlier: RecordedFile, of key: EpisodeKey) throws -> Removal {
        if try store.libraryFiles.recordedFile(path: earlier.path) != nil {
            return .refused(Refusal(.notForThisReason, "left \(earlier.path) in place: another of podcast's files has that name now"))
        }
        return try remove(earlier.path, checked: try check(earlier.path, recorded: earlier, for: .refetch(key)))
    }

    private func remove(_ path: String, checked: (verdict: Verdict, checked: FileIO.Stamp?)) throws -> Removal {
        switch checked.verdict {
        case .absent:
            return .absent
        case .refused(let why):
            return .refused(why)
        case .owned(let file):
            // The name must still stand for the file whose digest was just taken: one renamed over
            // it meanwhile (a tagger saving, a sync tool) is someone else's.
            guard let checkedFile = checked.checked, let now = FileIO.stamp(ofName: path), now.isSameFile(as: checkedFile) else {
                return .refused(Refusal(.changed, "left \(path) in place: it was replaced while podcast checked it"))
            }
            let size = file.bytes ?? FileIO.regularFileSize(path) ?? 0
            guard unlink(path) == 0 || errno == ENOENT else {
                let reason = SystemError.last("unlink", path: path).reason
                return .refused(Refusal(.failed, "could not delete \(path): \(reason); delete it yourself"))
            }
            return .removed(bytes: size)
        }
    }

    /// Puts the new file `source` (one podcast just made) at `destination`: by a rename over what is
    /// there only when that is podcast's for `reason`, else only where nothing is. Returns why it
    /// was not placed (`source` is then left for the caller to remove), or nil when it was.
    public func place(_ source: String, at destination: String, for reason: Reason) throws -> String? {
        let checked = try check(destination, recorded: try store.libraryFiles.recordedFile(path: destination), for: reason)
        switch checked.verdict {
        case .refused(let why):
            return why.message
        case .owned:
            guard let checkedFile = checked.checked, let now = FileIO.stamp(ofName: destination), now.isSameFile(as: checkedFile) else {
                return "left \(destination) in place: it was replaced while podcast checked it"
            }
            guard FileIO.calls.rename(source, destination) == 0 else { throw SystemError.last("rename", path: destination) }
            return nil
        case .absent:
            return try FileIO.moveWithoutReplacing(source, to: destination) ? nil : "left \(destination) in place: podcast did not write it"
        }
    }
}
