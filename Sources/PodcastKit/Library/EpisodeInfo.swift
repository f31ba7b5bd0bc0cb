import FoundationEssentials
import PodcastText

/// `<name>.info.json` beside an episode (`--with info`): the podcast's and the episode's details
/// with the keys and forms of `podcast episodes --json` (ISO 8601 dates in UTC, whole seconds,
/// URLs' secrets masked), so one tool reads both.
struct EpisodeInfo: Encodable {
    let item: DownloadItem
    let show: Feed
    let episode: Episode?

    private enum Keys: String, CodingKey {
        case podcast, episode, title, url, link, description, author, image, language, guid, published, duration
        case season, episodeType = "episode_type", enclosure, type, length, transcripts, chaptersURL = "chapters_url"
    }

    /// The document, pretty-printed with sorted keys (the same details give the same bytes). It
    /// leaves the program as a file, so the secrets of the URLs in it (the feed's, the media's,
    /// any in the show notes) are masked here, the whole document at once.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var document = Data()
        try encoder.encode(self).withUnsafeBytes { bytes in SecretRedactor.redact(bytes) { document.append(contentsOf: $0) } }
        return document
    }

    func encode(to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: Keys.self)
        var podcast = root.nestedContainer(keyedBy: Keys.self, forKey: .podcast)
        try podcast.encode(show.title.isEmpty ? item.podcastTitle : show.title, forKey: .title)
        try podcast.encode(item.feed, forKey: .url)
        try podcast.encode(show.link, forKey: .link)
        try podcast.encode(show.description, forKey: .description)
        try podcast.encode(show.author, forKey: .author)
        try podcast.encode(show.image, forKey: .image)
        try podcast.encode(show.language, forKey: .language)
        var details = root.nestedContainer(keyedBy: Keys.self, forKey: .episode)
        try details.encode(item.entry.guid, forKey: .guid)
        try details.encode(item.entry.title, forKey: .title)
        try details.encode(item.entry.published.map(UTCDate.iso8601), forKey: .published)
        try details.encode(episode?.duration, forKey: .duration)
        try details.encode(episode?.description, forKey: .description)
        try details.encode(episode?.link, forKey: .link)
        try details.encode(episode?.image, forKey: .image)
        try details.encode(episode?.season, forKey: .season)
        try details.encode(episode?.episodeNumber, forKey: .episode)
        try details.encode(episode?.episodeType, forKey: .episodeType)
        var enclosure = details.nestedContainer(keyedBy: Keys.self, forKey: .enclosure)
        try enclosure.encode(item.entry.enclosureURL, forKey: .url)
        try enclosure.encode(item.entry.enclosureType, forKey: .type)
        try enclosure.encode(item.entry.enclosureLength, forKey: .length)
        var transcripts = details.nestedUnkeyedContainer(forKey: .transcripts)
        for transcript in episode?.transcripts ?? [] {
            var entry = transcripts.nestedContainer(keyedBy: Keys.self)
            try entry.encode(transcript.url, forKey: .url)
            try entry.encode(transcript.type, forKey: .type)
        }
        try details.encode(episode?.chaptersURL, forKey: .chaptersURL)
    }
}
