import Foundation

/// A new empty directory, removed with everything in it when this value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates `<tmp>/<prefix>-<uuid>`.
    public init(prefix: String = "podcast-test") throws {
        url = FileManager.default.temporaryDirectory.appending(path: "\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// The directory's path.
    public var path: String { url.path }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String {
        url.appending(path: name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
