import FoundationEssentials
import PodcastText

/// The values a name template's fields take for one episode.
public struct NameValues: Sendable, Equatable {
    /// The podcast's title.
    public var podcast: String
    /// The episode's title.
    public var title: String
    /// When it was published (`{date}`, `{year}`, `{month}`, `{day}`, in UTC).
    public var published: Date?
    /// `itunes:episode` / `podcast:episode`.
    public var episode: Int?
    /// `itunes:season` / `podcast:season`.
    public var season: Int?
    /// The feed's guid for it.
    public var guid: String?
    /// The media file's extension, without the dot.
    public var fileExtension: String

    /// The name of an episode whose title leaves nothing.
    static let untitledEpisode = "Untitled episode"

    /// Creates the values.
    public init(
        podcast: String, title: String, published: Date? = nil, episode: Int? = nil, season: Int? = nil, guid: String? = nil,
        fileExtension: String
    ) {
        self.podcast = podcast
        self.title = title
        self.published = published
        self.episode = episode
        self.season = season
        self.guid = guid
        self.fileExtension = fileExtension
    }

    /// `field`'s value made safe as one name; empty when the episode has none (a title or a
    /// podcast name that leaves nothing takes a stand-in, so the file still has a name).
    func safeValue(of field: NameTemplate.Field) -> String {
        let day = published.map(UTCDate.day) ?? ""
        switch field {
        case .podcast: return EpisodeFileName.component(podcast, fallback: "Untitled podcast")
        case .title: return EpisodeFileName.component(title, fallback: Self.untitledEpisode)
        case .date: return day
        case .year: return String(day.prefix(4))
        case .month: return String(day.dropFirst(5).prefix(2))
        case .day: return String(day.dropFirst(8).prefix(2))
        case .episode: return episode.map(String.init) ?? ""
        case .season: return season.map(String.init) ?? ""
        case .guid: return guid.map { EpisodeFileName.component($0, fallback: "") } ?? ""
        case .ext: return fileExtension
        }
    }
}
