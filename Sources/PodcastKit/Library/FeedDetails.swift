import FoundationEssentials
import Glibc

/// What a feed says about a batch's episodes beyond what listings keep (show notes, season and
/// episode numbers, transcripts, chapters, artwork, the show's author and image), for names,
/// companions and tags. Listings keep only what listing and downloading need, so a 10,000-item
/// feed stays cheap to list; these are read again, when a setting needs them, from the feed's copy
/// in the feed cache (`<home>/feeds`, beside the state store) or from its file, once per feed.
///
/// Not Sendable: the batch thread owns it.
final class FeedDetails {
    /// One feed as read: the show (without episodes) and its episodes by identity.
    struct Found {
        var show: Feed
        var episodes: [String: Episode]
    }

    private let store: StateStore
    private let cacheDirectory: String
    private var feeds: [String: Found?] = [:]

    /// Details read through `store`'s feed cache.
    init(store: StateStore) {
        self.store = store
        let home = store.path.lastIndex(of: "/").map { String(store.path[..<$0]) } ?? "."
        cacheDirectory = home + "/feeds"
    }

    /// The show and the episode `identity` of the feed recorded as `feed` (its URL, or a `file://`
    /// URL); nil when the feed is neither cached nor a readable file. The episode is nil when the
    /// feed no longer lists it: the show's details still serve. A store that cannot be read is
    /// told to `problem`, once per feed.
    func lookup(feed: String, identity: String, problem: (String) -> Void) -> (show: Feed, episode: Episode?)? {
        if feeds[feed] == nil {
            do {
                feeds[feed] = .some(try read(feed))
            } catch {
                feeds[feed] = .some(nil)
                problem("could not look the feed up in the feed cache (\(error)); its files are named and tagged without the feed's details")
            }
        }
        guard let found = feeds[feed] ?? nil else { return nil }
        return (found.show, found.episodes[identity])
    }

    /// The feed's copy, every cached page of it, parsed; nil when there is none.
    private func read(_ feed: String) throws(StoreError) -> Found? {
        var pages: [Feed] = []
        var next: String? = feed
        var visited: Set<String> = []
        while let url = next, pages.count < FeedRefresh.maxPages, visited.insert(url).inserted, let path = try copy(of: url) {
            guard let result = try? FeedFile.parse(file: path, url: url, source: url) else { break }
            pages.append(result.feed)
            next = result.feed.nextPageURL
        }
        guard var show = pages.first else { return nil }
        var episodes: [String: Episode] = [:]
        for page in pages {
            for episode in page.episodes where episodes[episode.identity] == nil { episodes[episode.identity] = episode }
        }
        show.episodes = []
        return Found(show: show, episodes: episodes)
    }

    /// Where the feed at `url` is on disk: its cached body, or the file a `file://` URL names.
    private func copy(of url: String) throws(StoreError) -> String? {
        if url.lowercased().hasPrefix("file://") {
            guard let path = URL(string: url)?.path(percentEncoded: false), access(path, R_OK) == 0 else { return nil }
            return path
        }
        guard let entry = try store.feedCache.entry(url: url) else { return nil }
        let path = cacheDirectory + "/" + entry.bodyFile
        return access(path, R_OK) == 0 ? path : nil
    }
}
