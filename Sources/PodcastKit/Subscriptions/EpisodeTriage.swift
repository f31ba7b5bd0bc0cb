import FoundationEssentials

/// What one fetch of a subscribed feed means for its episodes: which identities become new (for
/// `update` to download) and which are only seen. A pure function, tested without a store.
///
/// The first fetch after subscribing is the baseline: every episode in it is seen, except the
/// newest `first`, which are new. After that, every identity not seen before is new, unless the
/// fetch would make most of the feed new at once with episodes no newer than the newest seen one:
/// then the feed has changed its identities (a move to another host that rewrote every guid, the
/// complaint in gpodder#1407 and castget#67), and re-downloading its back catalogue is the last
/// thing the user wants.
public enum EpisodeTriage {
    /// One episode of the fetch: its identity and publication date.
    public struct Fetched: Sendable, Equatable {
        /// The identity (guid, or the documented fallback).
        public var identity: String
        /// When it was published, if the feed says.
        public var published: Date?

        /// Creates one.
        public init(identity: String, published: Date?) {
            self.identity = identity
            self.published = published
        }
    }

    /// The verdict.
    public struct Verdict: Sendable, Equatable {
        /// Identities that become new, newest first.
        public var new: [String]
        /// Identities seen for the first time that are not new (the baseline's older ones, or all
        /// of a churned fetch).
        public var seen: [String]
        /// True when the churn guard held the fetch back: `seen` is what would have been new.
        public var churned: Bool
    }

    /// The fewest new episodes that can look like churn: a feed that gains four at once is just busy.
    public static let churnMinimum = 5

    /// The verdict on `episodes` (newest first) for a subscription that knows `known` identities,
    /// the newest of them published at `newestKnown`; `baseline` when this is its first fetch.
    public static func verdict(
        on episodes: [Fetched], known: Set<String>, newestKnown: Date?, baseline: Bool, first: Int
    ) -> Verdict {
        var unseen: [Fetched] = []
        var repeated = Set<String>()
        for episode in episodes where !known.contains(episode.identity) && repeated.insert(episode.identity).inserted {
            unseen.append(episode)
        }
        if baseline {
            let count = max(0, first)
            return Verdict(new: unseen.prefix(count).map(\.identity), seen: unseen.dropFirst(count).map(\.identity), churned: false)
        }
        if isChurn(unseen, of: episodes.count, newestKnown: newestKnown) {
            return Verdict(new: [], seen: unseen.map(\.identity), churned: true)
        }
        return Verdict(new: unseen.map(\.identity), seen: [], churned: false)
    }

    /// More than half of the feed new at once, at least `churnMinimum`, and none of it newer than
    /// the newest episode already seen (an undated one cannot show it is newer).
    static func isChurn(_ unseen: [Fetched], of total: Int, newestKnown: Date?) -> Bool {
        guard let newestKnown, unseen.count >= churnMinimum, unseen.count * 2 > total else { return false }
        return unseen.allSatisfy { ($0.published ?? .distantPast) <= newestKnown }
    }
}
