import Foundation

/// The test data that ships with the repository, in `Tests/Fixtures` (provenance and licenses in
/// its `ORIGINS.tsv`). Tests read nothing from outside the checkout, so a clone alone passes.
public enum Fixtures {
    /// The fixtures folder, `Tests/Fixtures` in this checkout.
    public static let directory: URL = {
        // This file is Sources/PodcastTestSupport/Fixtures.swift; the checkout is three levels up.
        let checkout = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return checkout.appending(path: "Tests/Fixtures")
    }()

    /// The bytes of the fixture at `path` (relative to the fixtures folder).
    public static func data(_ path: String) throws -> Data {
        try Data(contentsOf: directory.appending(path: path))
    }
}
