import FoundationEssentials

/// The tags a finished episode gets with `--tag`: what media apps show and sort by.
struct EpisodeTags: Equatable, Sendable {
    /// The episode's title.
    var title: String
    /// The podcast's title, as the album.
    var album: String
    /// The podcast's author, as the artist.
    var artist: String?
    /// The year it was published (TagLib's C API writes the year, not the day).
    var year: Int?
    /// `itunes:episode`, as the track number.
    var track: Int?
    /// Always `Podcast`, the genre podcast players file episodes under.
    var genre = "Podcast"
    /// The show notes, as the comment.
    var comment: String?
}

extension EpisodeTags {
    /// The tags of `download`'s episode, with what its feed says when it could be read.
    init(_ download: EpisodeDownload) {
        let item = download.item
        title = item.entry.title
        album = item.podcastTitle
        artist = download.filing.show?.author
        year = item.entry.published.map { Int(UTCDate.day($0).prefix(4)) ?? 0 }
        track = download.filing.episode?.episodeNumber
        comment = download.filing.episode?.description
    }
}
