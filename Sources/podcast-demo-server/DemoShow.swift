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

    /// The iTunes Search API answer for any podcast search: the demo show first.
    func podcastSearchResults() -> String {
        let podcasts: [[String: Any]] = [
            podcast(id: 1001, name: "Tones & Overtones", artist: "Demo Radio", feed: baseURL + "/feeds/tones.xml",
                    genre: "Music Commentary", count: Self.episodes.count),
            podcast(id: 1002, name: "The Loopback Hour", artist: "127.0.0.1 Productions", feed: baseURL + "/feeds/loopback.xml",
                    genre: "Technology", count: 42),
            podcast(id: 1003, name: "Members Only (Apple exclusive)", artist: "Walled Garden", feed: nil,
                    genre: "Comedy", count: 12),
        ]
        return answer(podcasts)
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
        [
            "/feeds/tones.xml": feed(title: "Tones &amp; Overtones", author: "Demo Radio", episodes: Self.episodes),
            "/feeds/loopback.xml": feed(title: "The Loopback Hour", author: "127.0.0.1 Productions", episodes: [Self.episodes[0]]),
        ]
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

    private func podcast(id: Int, name: String, artist: String, feed: String?, genre: String, count: Int) -> [String: Any] {
        var result: [String: Any] = [
            "wrapperType": "track", "kind": "podcast", "collectionId": id, "trackId": id,
            "collectionName": name, "trackName": name, "artistName": artist,
            "primaryGenreName": genre, "trackCount": count,
            "collectionViewUrl": "https://podcasts.example/id\(id)",
            "releaseDate": "2026-11-16T08:00:00Z",
        ]
        result["feedUrl"] = feed
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
