import PodcastPlatform

/// The Episodes directory cannot be used: its `.partial` folder, where every download starts,
/// cannot be made there (a read-only file system, a file in the way, no permission).
public struct EpisodesDirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The Episodes directory, absolute.
    public var directory: String
    /// The call that failed, on which path.
    public var error: SystemError
    /// What set the directory (`flag --episodes-dir`, `environment (PODCAST_EPISODES_DIR)`, a
    /// configuration file's line, `default`), when the caller knows it.
    public var origin: String?
    /// The feed of the subscription whose own directory it is (`subscribe --episodes-dir`), if so.
    public var subscriptionFeed: String?

    /// The error for `directory`, whose `.partial` folder `error` kept from being made.
    public init(directory: String, error: SystemError, origin: String? = nil, subscriptionFeed: String? = nil) {
        self.directory = directory
        self.error = error
        self.origin = origin
        self.subscriptionFeed = subscriptionFeed
    }

    /// One line: which directory, which setting chose it, why it cannot be used, what to do.
    public var description: String {
        // The path that failed, when it is not the directory itself: a file in the way above it.
        let at = error.path.flatMap { $0 == directory || $0 == EpisodePlacement.partialDirectory(in: directory) ? nil : " at \($0)" } ?? ""
        if let subscriptionFeed {
            return "cannot use the subscription's own Episodes directory \(directory): \(error.reason)\(at); "
                + "choose another with podcast subscribe \(subscriptionFeed) --episodes-dir <directory>"
        }
        let setting = origin.map { " (episodes-dir, set by \($0))" } ?? ""
        return "cannot use the Episodes directory \(directory)\(setting): \(error.reason)\(at); "
            + "choose another with --episodes-dir, PODCAST_EPISODES_DIR or episodes-dir in the configuration file"
    }
}
