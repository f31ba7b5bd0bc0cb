import Foundation

/// The shared real-world fixtures (`../shared/fixtures` beside the repository), read by tests.
public enum Fixtures {
    /// The fixtures folder: `PODCAST_FIXTURES` when set, else `shared/fixtures` beside the checkout.
    public static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["PODCAST_FIXTURES"], !override.isEmpty {
            return URL(filePath: override)
        }
        // This file is Sources/PodcastTestSupport/Fixtures.swift; the checkout is three levels up.
        let checkout = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return checkout.deletingLastPathComponent().appending(path: "shared/fixtures")
    }()

    /// The bytes of the fixture at `path` (relative to the fixtures folder).
    public static func data(_ path: String) throws -> Data {
        try Data(contentsOf: directory.appending(path: path))
    }
}
