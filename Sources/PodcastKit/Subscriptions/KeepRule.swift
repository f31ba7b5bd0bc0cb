import FoundationEssentials

/// Which of a subscription's files `keep N` deletes: the oldest of those podcast downloaded for it,
/// beyond the newest N; and which `delete --older-than DAYS` deletes. Only files podcast recorded
/// as its own are ever offered to it, so a file the user put in the folder is never a candidate.
public enum KeepRule {
    /// One downloaded file of the subscription.
    public struct File: Sendable, Equatable {
        /// The episode's identity.
        public var identity: String
        /// The finished file.
        public var path: String
        /// When the episode was published, if the feed said.
        public var published: Date?

        /// Creates one.
        public init(identity: String, path: String, published: Date?) {
            self.identity = identity
            self.path = path
            self.published = published
        }
    }

    /// The files to delete so that the newest `keep` remain; newest by publication date, undated
    /// ones counting as oldest (ties broken by path, so the choice never depends on order).
    public static func toDelete(_ files: [File], keep: Int) -> [File] {
        let newestFirst = files.sorted { left, right in
            let (a, b) = (left.published ?? .distantPast, right.published ?? .distantPast)
            return a != b ? a > b : left.path < right.path
        }
        return Array(newestFirst.dropFirst(max(0, keep)))
    }

    /// The files of episodes published more than `days` days before `now` (`delete --older-than`);
    /// an undated episode's age is unknown, so it is never among them.
    public static func olderThan(_ files: [File], days: Int, now: Date) -> [File] {
        let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
        return files.filter { ($0.published ?? .distantFuture) < cutoff }
    }
}
