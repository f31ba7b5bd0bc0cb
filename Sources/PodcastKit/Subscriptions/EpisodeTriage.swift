import FoundationEssentials

/// What one fetch of a subscribed feed means for its episodes: which identities become new (for
/// `update` to download) and which are only seen. A pure function, tested without a store.
///
/// The first fetch after subscribing is the baseline: every episode in it is seen, except the
/// newest `first`, which are new. After that, every identity not seen before is new, unless the
/// fetch would make most of the feed new at once with episodes no newer than the newest seen one:
/// then the feed has changed its identities (a move to another host that rewrote every guid, the
/// complaint in gpodder#1407 and castget#67), and re-downloading its back catalogue is the last
/// thing the user wants. Before any of that, an item whose identity changed but which is an
/// episode already seen (`sameEpisodes`) takes the identity it was seen under.
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

    /// An episode as far as recognising it under another identity goes: of the fetch, or one
    /// the subscription has seen.
    public struct Recognisable: Sendable, Equatable {
        /// The identity it has (fetched) or was recorded under (known).
        public var identity: String
        /// The title.
        public var title: String
        /// When it was published, if the feed says.
        public var published: Date?
        /// True when the feed gave it a guid: its identity is then the publisher's word, not a fallback.
        public var hasGuid: Bool
        /// Its enclosure's URL, if any.
        public var enclosureURL: String?

        /// Creates one.
        public init(identity: String, title: String, published: Date?, hasGuid: Bool, enclosureURL: String?) {
            self.identity = identity
            self.title = title
            self.published = published
            self.hasGuid = hasGuid
            self.enclosureURL = enclosureURL
        }
    }

    /// The items of a fetch (`fetched`) that are episodes the subscription has seen (`known`)
    /// under another identity: each item's identity mapped to the known one, whose records then
    /// take the item's, so the episode is never downloaded a second time.
    ///
    /// An identity changes without the episode changing when a feed without guids puts a new
    /// token in every enclosure URL, when it gains or drops guids, and when a store made before
    /// `EnclosureIdentity` meets the identities it makes now. The item is that episode when
    /// they have the same title and the same publication time (to the second); when both are
    /// undated, the same title and the same enclosure path (`EnclosureIdentity.path`). Two items
    /// that both have a guid are told apart by it, as the publisher says; a known episode that is
    /// still in the fetch under its own identity is not another item's; each known episode is
    /// taken by one item at most.
    public static func sameEpisodes(_ fetched: [Recognisable], known: [Recognisable]) -> [String: String] {
        let fetchedIdentities = Set(fetched.map(\.identity))
        let knownIdentities = Set(known.map(\.identity))
        var candidates: [RecognitionKey: [Recognisable]] = [:]
        for episode in known where !fetchedIdentities.contains(episode.identity) {
            guard let key = RecognitionKey(episode) else { continue }
            candidates[key, default: []].append(episode)
        }
        guard !candidates.isEmpty else { return [:] }
        var renamed: [String: String] = [:]
        for item in fetched where !knownIdentities.contains(item.identity) && renamed[item.identity] == nil {
            guard let key = RecognitionKey(item), let index = candidates[key]?.firstIndex(where: { !item.hasGuid || !$0.hasGuid }),
                let episode = candidates[key]?.remove(at: index)
            else { continue }
            renamed[item.identity] = episode.identity
        }
        return renamed
    }

    /// What two items must share to be one episode: the title, and the publication second, or
    /// for an undated item its enclosure's path (an undated item without an enclosure has nothing
    /// to be recognised by).
    private struct RecognitionKey: Hashable {
        var title: String
        var second: Int64?
        var path: String?

        init?(_ episode: Recognisable) {
            title = episode.title
            if let published = episode.published {
                // `exactly`: a date no Int64 holds is no second to compare, and must not trap.
                guard let whole = Int64(exactly: published.timeIntervalSince1970.rounded(.down)) else { return nil }
                second = whole
            } else {
                guard let url = episode.enclosureURL else { return nil }
                path = EnclosureIdentity.path(of: url)
            }
        }
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
