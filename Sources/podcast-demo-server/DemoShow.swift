import Foundation

/// The demo's content: a catalogue of podcasts, one of them with a real feed and episodes.
struct DemoShow {
    struct Episode {
        let number: Int
        let title: String
        let summary: String
        let published: String
        let seconds: Int
        let frequency: Double

        var path: String { "/audio/episode-\(number).wav" }
        var audio: [UInt8] { DemoAudio.wav(seconds: seconds, frequency: frequency) }
    }

    let baseURL: String

    static let episodes = [
        Episode(number: 1, title: "Pilot: Why Tones?", summary: "We introduce the show and play an A.",
                published: "Mon, 02 Nov 2026 08:00:00 GMT", seconds: 40, frequency: 440),
        Episode(number: 2, title: "Middle C & Friends", summary: "A conversation about middle C.",
                published: "Mon, 09 Nov 2026 08:00:00 GMT", seconds: 50, frequency: 261.63),
        Episode(number: 3, title: "Ünïcode in Titles — 音", summary: "Titles from every script.",
                published: "Mon, 16 Nov 2026 08:00:00 GMT", seconds: 60, frequency: 329.63),
    ]

    /// A podcast of the catalogue: with a feed the server serves (its episodes), or an Apple
    /// exclusive without one (only its episode count).
    struct Podcast {
        let id: Int
        let name: String
        let artist: String
        let genre: String
        /// Where the server serves its feed, and the episodes in it; nil for an Apple exclusive.
        let feed: (path: String, episodes: [Episode])?
        /// The episodes of a podcast without a feed here.
        var exclusiveEpisodes = 0

        /// The catalogue's `trackCount`: the episodes its feed has, so the catalogue agrees with the feed.
        var trackCount: Int { feed?.episodes.count ?? exclusiveEpisodes }
    }

    /// The podcasts any podcast search finds: the demo show first.
    static let catalogue = [
        Podcast(id: 1001, name: "Tones & Overtones", artist: "Demo Radio", genre: "Music Commentary", feed: ("/feeds/tones.xml", episodes)),
        Podcast(
            id: 1002, name: "The Loopback Hour", artist: "127.0.0.1 Productions", genre: "Technology",
            feed: ("/feeds/loopback.xml", [episodes[0]])),
        Podcast(id: 1003, name: "Members Only (Apple exclusive)", artist: "Walled Garden", genre: "Comedy", feed: nil, exclusiveEpisodes: 12),
    ]

    /// The iTunes Search API answer for any podcast search.
    func podcastSearchResults() -> String {
        answer(Self.catalogue.map(podcast))
    }

    /// The iTunes Search API answer for any music search: songs with previews.
    func musicSearchResults() -> String {
        let songs: [[String: Any]] = Self.episodes.map { episode in
            [
                "wrapperType": "track", "kind": "song", "trackId": 2000 + episode.number,
                "trackName": "Tone No. \(episode.number)", "artistName": "The Sine Waves",
                "collectionName": "Pure Tones", "primaryGenreName": "Electronic",
                "previewUrl": baseURL + episode.path, "trackTimeMillis": episode.seconds * 1000,
                "trackViewUrl": "https://music.example/tone-\(episode.number)",
            ]
        }
        return answer(songs)
    }

    /// The feeds the catalogue names, by path.
    var feeds: [String: String] {
        var feeds: [String: String] = [:]
        for podcast in Self.catalogue {
            guard let (path, episodes) = podcast.feed else { continue }
            feeds[path] = feed(title: escape(podcast.name), author: escape(podcast.artist), episodes: episodes)
        }
        return feeds
    }

    /// An RSS feed with iTunes tags, newest episode last as many feeds have it.
    private func feed(title: String, author: String, episodes: [Episode]) -> String {
        let items = episodes.map { episode in
            """
                <item>
                  <title>\(escape(episode.title))</title>
                  <guid isPermaLink="false">tones-episode-\(episode.number)</guid>
                  <pubDate>\(episode.published)</pubDate>
                  <description><![CDATA[<p>\(escape(episode.summary))</p>]]></description>
                  <enclosure url="\(baseURL)\(episode.path)" length="\(44 + episode.seconds * DemoAudio.sampleRate * 2)" type="audio/wav"/>
                  <itunes:duration>\(episode.seconds)</itunes:duration>
                  <itunes:episode>\(episode.number)</itunes:episode>
                </item>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
              <channel>
                <title>\(title)</title>
                <link>\(baseURL)/</link>
                <description>A demo podcast of pure tones, served from your own machine.</description>
                <language>en</language>
                <itunes:author>\(author)</itunes:author>
            \(items.joined(separator: "\n"))
              </channel>
            </rss>

            """
    }

    private func podcast(_ podcast: Podcast) -> [String: Any] {
        var result: [String: Any] = [
            "wrapperType": "track", "kind": "podcast", "collectionId": podcast.id, "trackId": podcast.id,
            "collectionName": podcast.name, "trackName": podcast.name, "artistName": podcast.artist,
            "primaryGenreName": podcast.genre, "trackCount": podcast.trackCount,
            "collectionViewUrl": "https://podcasts.example/id\(podcast.id)",
            "releaseDate": "2026-11-16T08:00:00Z",
        ]
        result["feedUrl"] = podcast.feed.map { baseURL + $0.path }
        return result
    }

    /// The body the real API sends: blank lines, then the JSON.
    private func answer(_ results: [[String: Any]]) -> String {
        let document: [String: Any] = ["resultCount": results.count, "results": results]
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data("{}".utf8)
        return "\n\n\n" + String(decoding: data, as: UTF8.self) + "\n"
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
