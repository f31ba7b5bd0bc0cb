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
