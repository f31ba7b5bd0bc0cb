/// One numbered result of a search: a podcast, or a song with its preview.
public struct SearchResult: Sendable, Equatable {
    /// The number shown to the user, from 1; `podcast episodes N` refers to it.
    public var number: Int
    /// The directory's id: the iTunes collection id (podcasts) or track id (songs), the Podcast
    /// Index feed id, the fyyd podcast id.
    public var id: Int
    /// The podcast's or song's name.
    public var name: String
    /// The author or artist.
    public var artist: String
    /// The podcast's RSS feed, or nil when iTunes lists none (such a podcast cannot be listed).
    public var feedURL: String?
    /// A song's 30-second preview; nil for podcasts.
    public var previewURL: String?
    /// The primary genre.
    public var genre: String?
    /// The number of episodes the directory counts for a podcast.
    public var episodeCount: Int?
    /// The largest artwork the directory offers.
    public var artworkURL: String?
    /// The item's page in the directory (the Apple store, podcastindex.org, fyyd.de).
    public var storeURL: String?
    /// The latest release (ISO 8601, or as the directory gives it).
    public var releaseDate: String?

    /// Creates a result; every field but the identity and names is optional.
    public init(
        number: Int, id: Int, name: String, artist: String,
        feedURL: String? = nil, previewURL: String? = nil, genre: String? = nil,
        episodeCount: Int? = nil, artworkURL: String? = nil, storeURL: String? = nil,
        releaseDate: String? = nil
    ) {
        self.number = number
        self.id = id
        self.name = name
        self.artist = artist
        self.feedURL = feedURL
        self.previewURL = previewURL
        self.genre = genre
        self.episodeCount = episodeCount
        self.artworkURL = artworkURL
        self.storeURL = storeURL
        self.releaseDate = releaseDate
    }
}

/// A finished search: what was asked and the numbered results, as the state store keeps it.
public struct SearchOutcome: Sendable, Equatable {
    /// The query as sent.
    public var query: SearchQuery
    /// The `--directory` name of the directory that answered (`itunes`, `podcastindex`, `fyyd`):
    /// what the numbers refer to.
    public var directory: String
    /// The results, numbered from 1 in the order the directory ranked them.
    public var results: [SearchResult]
    /// How many items the directory returned that were not of the kind asked for (dropped, but counted).
    public var skippedOtherKinds: Int

    /// Creates an outcome.
    public init(query: SearchQuery, results: [SearchResult], skippedOtherKinds: Int = 0, directory: String = ITunesCatalog.info.name) {
        self.query = query
        self.directory = directory
        self.results = results
        self.skippedOtherKinds = skippedOtherKinds
    }
}
