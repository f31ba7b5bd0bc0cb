extension Listing {
    /// The listing of `feed`'s first `limit` episodes (all when nil), remembered under `url`.
    public init(feed: Feed, url: String, limit: Int? = nil) {
        self.init(source: .feed(url: url, title: feed.title), items: Array(Self.items(of: feed, limit: limit)))
    }

    /// The items of `feed`'s first `limit` episodes (all when nil), each made as it is read.
    static func items(of feed: Feed, limit: Int?) -> some Collection<ListingItem> {
        (0..<min(limit ?? feed.episodes.count, feed.episodes.count)).lazy.map { index in
            ListingItem(episode: feed.episodes[index], number: index + 1)
        }
    }
}

extension ListingItem {
    /// The item numbered `number` for `episode`.
    init(episode: borrowing Episode, number: Int) {
        self.init(
            number: number, identity: episode.identity, title: episode.title,
            enclosureURL: episode.enclosure?.url, enclosureType: episode.enclosure?.type,
            enclosureLength: episode.enclosure?.length, published: episode.published, guid: episode.guid,
            integrity: episode.enclosureIntegrity)
    }
}

extension Episode {
    /// The digest of the main media file: the integrity of the alternate enclosure that lists
    /// the enclosure's URL among its sources (Podcasting 2.0 describes the main file that way).
    var enclosureIntegrity: Integrity? {
        guard let url = enclosure?.url else { return nil }
        return alternateEnclosures.first { $0.integrity != nil && $0.sources.contains(url) }?.integrity
    }
}
