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
            let (new, seen) = Self.baseline(unseen.map(\.identity), first: first)
            return Verdict(new: new, seen: seen, churned: false)
        }
        if isChurn(unseen, of: episodes.count, newestKnown: newestKnown) {
            return Verdict(new: [], seen: unseen.map(\.identity), churned: true)
        }
        return Verdict(new: unseen.map(\.identity), seen: [], churned: false)
    }

    /// The first-N rule over a baseline's `identities` (newest first): the newest `first` are new,
    /// the rest seen. The first fetch applies it, and so does `subscribe --first` on a subscription
    /// whose baseline is still all pending, so a changed `first` takes.
    public static func baseline(_ identities: [String], first: Int) -> (new: [String], seen: [String]) {
        let count = max(0, first)
        return (Array(identities.prefix(count)), Array(identities.dropFirst(count)))
    }

    /// More than half of the feed new at once, at least `churnMinimum`, and none of it newer than
    /// the newest episode already seen (an undated one cannot show it is newer).
    static func isChurn(_ unseen: [Fetched], of total: Int, newestKnown: Date?) -> Bool {
        guard let newestKnown, unseen.count >= churnMinimum, unseen.count * 2 > total else { return false }
        return unseen.allSatisfy { ($0.published ?? .distantPast) <= newestKnown }
    }
}
