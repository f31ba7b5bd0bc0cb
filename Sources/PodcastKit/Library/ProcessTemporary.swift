import Glibc
import PodcastPlatform

/// A file podcast writes beside its destination and then renames into place (a companion file, a
/// playlist): hidden, and named for the process writing it, so `podcast clean` can tell one that a
/// killed process left behind from one still being written.
enum ProcessTemporary {
    /// The name's start and end around the hash and the process id.
    private static let prefix = ".podcast-"
    private static let suffix = ".tmp"

    /// A temporary path in `folder` for the file that `purpose` names (a destination, an episode
    /// and a kind…), owned by this process; ending in `.<fileExtension>` when given, for a
    /// library that tells a file's format by its name (TagLib, for Opus).
    static func path(in folder: String, for purpose: String, fileExtension: String? = nil) -> String {
        folder + "/" + prefix + StableHash.hex(purpose) + "." + String(getpid()) + suffix + (fileExtension.map { "." + $0 } ?? "")
    }

    /// True for a temporary file's name whose process has ended.
    static func isOrphaned(name: String) -> Bool {
        let base = name.hasSuffix(suffix) ? Substring(name) : name[..<(name.lastIndex(of: ".") ?? name.endIndex)]
        guard base.hasPrefix(prefix), base.hasSuffix(suffix) else { return false }
        let middle = base.dropFirst(prefix.count).dropLast(suffix.count)
        guard let dot = middle.lastIndex(of: "."), let pid = Int32(middle[middle.index(after: dot)...]) else { return false }
        return !ProcessOwner(pid: pid, boot: ProcessOwner.currentBoot).isAlive
    }
}
