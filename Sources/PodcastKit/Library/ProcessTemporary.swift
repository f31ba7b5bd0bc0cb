import Glibc

/// A file podcast writes beside its destination and then renames into place (a companion file, a
/// playlist): hidden, and named for the process writing it, so `podcast clean` can tell one that a
/// killed process left behind from one still being written.
enum ProcessTemporary {
    /// The name's start and end around the hash and the process id.
    private static let prefix = ".podcast-"
    private static let suffix = ".tmp"

    /// A temporary path in `folder` for the file that `purpose` names (a destination, an episode
    /// and a kind…), owned by this process.
    static func path(in folder: String, for purpose: String) -> String {
        folder + "/" + prefix + StableHash.hex(purpose) + "." + String(getpid()) + suffix
    }

    /// True for a temporary file's name whose process has ended.
    static func isOrphaned(name: String) -> Bool {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return false }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard let dot = middle.lastIndex(of: "."), let pid = Int32(middle[middle.index(after: dot)...]) else { return false }
        return !ProcessOwner(pid: pid, boot: ProcessOwner.currentBoot).isAlive
    }
}
