import PodcastHTTP
import PodcastText

/// One entry of an iTunes Search API `results` array, decoded leniently: a field that is
/// missing or of an unexpected type is nil rather than a failure, because the API mixes kinds
/// (podcasts, songs, movies, audiobooks) with different fields in one answer.
struct ITunesItem: Decodable {
    var kind: String?
    var collectionId: Int?
    var trackId: Int?
    var collectionName: String?
    var trackName: String?
    var artistName: String?
    var feedUrl: String?
    var previewUrl: String?
    var primaryGenreName: String?
    var trackCount: Int?
    var artworkUrl600: String?
    var artworkUrl100: String?
    var artworkUrl60: String?
    var collectionViewUrl: String?
    var trackViewUrl: String?
    var releaseDate: String?

    private enum CodingKeys: String, CodingKey {
        case kind, collectionId, trackId, collectionName, trackName, artistName, feedUrl
        case previewUrl, primaryGenreName, trackCount, artworkUrl600, artworkUrl100, artworkUrl60
        case collectionViewUrl, trackViewUrl, releaseDate
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) -> String? {
            guard let value = try? container.decodeIfPresent(String.self, forKey: key) else { return nil }
            let trimmed = value.trimmingWhitespace()
            return trimmed.isEmpty ? nil : trimmed
        }
        func number(_ key: CodingKeys) -> Int? {
            try? container.decodeIfPresent(Int.self, forKey: key)
        }
        kind = text(.kind)
        collectionId = number(.collectionId)
        trackId = number(.trackId)
        collectionName = text(.collectionName)
        trackName = text(.trackName)
        artistName = text(.artistName)
        feedUrl = text(.feedUrl)
        previewUrl = text(.previewUrl)
        primaryGenreName = text(.primaryGenreName)
        trackCount = number(.trackCount)
        artworkUrl600 = text(.artworkUrl600)
        artworkUrl100 = text(.artworkUrl100)
        artworkUrl60 = text(.artworkUrl60)
        collectionViewUrl = text(.collectionViewUrl)
        trackViewUrl = text(.trackViewUrl)
        releaseDate = text(.releaseDate)
    }

    /// This item as a podcast result, or nil when it is not a podcast.
    func podcast(number: Int) -> SearchResult? {
        guard kind == "podcast", let id = collectionId ?? trackId else { return nil }
        return SearchResult(
            number: number, id: id,
            name: collectionName ?? trackName ?? "Untitled podcast",
            artist: artistName ?? "",
            feedURL: feedUrl.flatMap { HTTPClient.isHTTP($0) ? $0 : nil },
            genre: primaryGenreName, episodeCount: trackCount,
            artworkURL: artworkUrl600 ?? artworkUrl100 ?? artworkUrl60,
            storeURL: collectionViewUrl ?? trackViewUrl, releaseDate: releaseDate)
    }

    /// This item as a song with a preview, or nil when it is not a song.
    func song(number: Int) -> SearchResult? {
        guard kind == "song", let id = trackId else { return nil }
        return SearchResult(
            number: number, id: id,
            name: trackName ?? collectionName ?? "Untitled song",
            artist: artistName ?? "",
            previewURL: previewUrl.flatMap { HTTPClient.isHTTP($0) ? $0 : nil },
            genre: primaryGenreName,
            artworkURL: artworkUrl100 ?? artworkUrl60,
            storeURL: trackViewUrl ?? collectionViewUrl, releaseDate: releaseDate)
    }
}

/// The top level of an iTunes Search API answer.
struct ITunesSearchResponse: Decodable {
    var results: [ITunesItem]
}

/// The body of an iTunes 4xx answer: `{"errorMessage": "Invalid value(s) for key(s): [country]"}`.
struct ITunesErrorAnswer: Decodable {
    var errorMessage: String
}
