import Foundation
import Glibc
import PodcastTestSupport

/// A small file system of its own for the Episodes directory, where room runs out for real.
enum TmpfsScenario {
    /// Runs `body` with a fresh tmpfs of `size` (`4m`) mounted as an Episodes directory, unmounted
    /// after; skipped, with a line naming `suite` and why, where this process may not mount one.
    static func run(size: String, prefix: String, suite: String, _ body: (String) async throws -> Void) async throws {
        let scratch = try TemporaryDirectory(prefix: prefix)
        let episodes = scratch.path("Episodes")
        try FileManager.default.createDirectory(atPath: episodes, withIntermediateDirectories: true)
        guard mount("tmpfs", episodes, "tmpfs", 0, "size=\(size)") == 0 else {
            print("\(suite): skipped, a tmpfs cannot be mounted here (\(String(cString: strerror(errno))))")
            return
        }
        defer { umount2(episodes, Int32(MNT_DETACH)) }
        try await body(episodes)
    }
}
