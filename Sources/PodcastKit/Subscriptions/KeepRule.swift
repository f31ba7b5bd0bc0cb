import FoundationEssentials

/// Which of a subscription's files `keep N` deletes: the oldest of those its updates downloaded,
/// beyond the newest N; and how old `delete --older-than DAYS` counts an episode. Only files
/// podcast recorded as its own are ever offered to it, so a file the user put in the folder is
/// never a candidate.
public enum KeepRule {
    /// One downloaded file of the subscription.
    public struct File: Sendable, Equatable {
        /// The episode's identity.
        public var identity: String
        /// The feed its download record is kept under (after a move that could not carry it, an
        /// earlier address of the subscription's); empty where no record is meant.
        public var feed: String
        /// The finished file.
        public var path: String
        /// When the episode was published, if the feed said.
        public var published: Date?
        /// Its place among the subscription's episodes, newest first: those a later fetch first
        /// showed before those an earlier one did, and within one fetch in the feed's own order
        /// (feeds list the newest first). Nil when the subscription has no record of it.
        public var position: Int?

        /// Creates one.
        public init(identity: String, path: String, published: Date?, position: Int? = nil, feed: String = "") {
            self.identity = identity
            self.feed = feed
            self.path = path
            self.published = published
            self.position = position
        }

        /// The episode whose download record this file is.
        public var key: EpisodeKey { EpisodeKey(feed: feed, identity: identity) }
    }

    /// The files to delete so that the newest `keep` remain. Newest by publication date when every
    /// file has one; when any is undated, dates cannot order them all, and the feed's own order
    /// (`position`) does, so a just-downloaded undated episode is never taken for the oldest. Ties,
    /// and files without a position, are broken by path, so the choice never depends on order.
    public static func toDelete(_ files: [File], keep: Int) -> [File] {
        let byDate = files.allSatisfy { $0.published != nil }
        let newestFirst = files.sorted { left, right in
            if byDate, let a = left.published, let b = right.published, a != b { return a > b }
            let (a, b) = (left.position ?? Int.max, right.position ?? Int.max)
            return a != b ? a < b : left.path < right.path
        }
        return Array(newestFirst.dropFirst(max(0, keep)))
    }

    /// True when an episode published at `published` is more than `days` days old at `now`; an
    /// undated one never is.
    public static func isOlder(_ published: Date?, thanDays days: Int, now: Date) -> Bool {
        (published ?? .distantFuture) < now.addingTimeInterval(-Double(days) * 86_400)
    }
}
