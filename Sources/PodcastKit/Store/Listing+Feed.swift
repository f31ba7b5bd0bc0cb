extension Listing {
    /// The listing of `feed`'s first `limit` episodes (all when nil), remembered under `url`.
    public init(feed: Feed, url: String, limit: Int? = nil) {
        let episodes = limit.map { Array(feed.episodes.prefix($0)) } ?? feed.episodes
        self.init(
            source: .feed(url: url, title: feed.title),
            items: episodes.enumerated().map { index, episode in
                ListingItem(
                    number: index + 1, identity: episode.identity, title: episode.title,
                    enclosureURL: episode.enclosure?.url, enclosureType: episode.enclosure?.type,
                    enclosureLength: episode.enclosure?.length, published: episode.published, guid: episode.guid)
            })
    }
}
