import PodcastHTTP

/// Turns what the user named (`podcast episodes <feed>`) into a feed: a URL, a file, a number
/// from the last search, an iTunes id, an Apple Podcasts or Overcast link (looked up by its id),
/// or a web page naming its feed (`FeedPage`).
///
/// Blocks the calling thread; not Sendable through its store.
public struct FeedReader {
    /// Looks up `itunes:<id>`.
    public var catalog: ITunesCatalog
    /// Fetches URLs (and, with its settings, pages naming feeds).
    public var fetcher: FeedFetcher
    /// Holds the last search.
    public var store: StateStore

    /// A reader over the given services.
    public init(catalog: ITunesCatalog, fetcher: FeedFetcher, store: StateStore) {
        self.catalog = catalog
        self.fetcher = fetcher
        self.store = store
    }

    /// Reads the feed `source` names; `refresh` skips the conditional GET.
    /// Throws `UsageError` for a number that is not in the last search, `SearchError` for a failed
    /// lookup, `FeedError` for a feed that cannot be fetched or read.
    public func read(_ source: FeedSource, refresh: Bool) throws -> FeedFetcher.Fetched {
        switch source {
        case .url(let url):
            do {
                return try fetcher.fetch(url, refresh: refresh)
            } catch where error.kind == .html {
                // Known only once its first bytes arrive, and then no longer fetched: the page
                // is asked for again, this time to be read.
                return try read(FeedPage.feeds(at: url, http: HTTPClient(settings: fetcher.settings)), refresh: refresh)
            }
        case .appleLink(let link, let id):
            let feed = try catalog.feedURL(ofPodcast: id, link: link)
            return try read(FeedResolution(link: link, feeds: [feed], chosen: feed, way: .appleLookup(id: id)), refresh: refresh)
        case .file(let path):
            let result = try FeedFile.read(file: path)
            return FeedFetcher.Fetched(result: result, url: result.feed.url, moves: [], notModified: false, pages: 1)
        case .itunes(let id):
            return try fetcher.fetch(try catalog.feedURL(ofPodcast: id), refresh: refresh)
        case .searchResult(let number):
            return try fetcher.fetch(try feedURL(ofResult: number), refresh: refresh)
        }
    }

    /// The feed `resolution` chose, with how it was found; a failure names the link it came from.
    private func read(_ resolution: FeedResolution, refresh: Bool) throws -> FeedFetcher.Fetched {
        var fetched: FeedFetcher.Fetched
        do {
            fetched = try fetcher.fetch(resolution.chosen, refresh: refresh)
        } catch var error {
            error.source = "\(resolution.chosen) (found from \(resolution.link))"
            throw error
        }
        fetched.resolution = resolution
        return fetched
    }

    private func feedURL(ofResult number: Int) throws -> String {
        guard let search = try store.lastSearch.load(), !search.results.isEmpty else {
            throw UsageError("there is no search to take number \(number) from; run podcast search first, or give a feed URL")
        }
        guard let result = search.results.first(where: { $0.number == number }) else {
            throw UsageError("there is no result \(number) in the last search (\"\(search.query.term)\": 1–\(search.results.count))")
        }
        guard search.query.media == .podcast else {
            throw UsageError("the last search was for music; its numbers are previews for podcast download, not feeds")
        }
        guard let feed = result.feedURL else {
            let why = search.directory == ITunesCatalog.info.name ? "no public feed (an Apple-only show)" : "no feed in \(search.directory)"
            throw UsageError("result \(number) (\(result.name)) has \(why); pick another")
        }
        return feed
    }
}
