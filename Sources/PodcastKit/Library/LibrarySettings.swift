/// What the Episodes directory gets beside each download: the file's name (`--name-template`,
/// `--portable-names`), its companion files (`--with`, `--transcript-types`), its tags (`--tag`)
/// and each podcast's playlist (`--playlist`). Part of `DownloadSettings`; a subscription's own
/// template and companions replace the run's for its episodes (`DownloadItem.library`).
public struct LibrarySettings: Sendable, Equatable {
    /// How finished files are named.
    public var nameTemplate: NameTemplate
    /// Whether names also avoid what FAT, exFAT and SMB refuse.
    public var portableNames: Bool
    /// The companion files fetched or written beside each episode.
    public var companions: Set<Companion>
    /// Which transcript to prefer when an episode offers several.
    public var transcriptTypes: [TranscriptFormat]
    /// Whether finished media files get title, album, artist, date, track, genre and description tags.
    public var tag: Bool
    /// Whether each podcast's folder gets an M3U8 playlist after each run.
    public var playlist: Bool
    /// The command run (`/bin/sh -c`) after each episode is placed (`--on-episode`), the
    /// episode's details in its environment only; nil for none.
    public var onEpisode: String?

    /// The defaults: the standard names, nothing else.
    public init(
        nameTemplate: NameTemplate = .standard, portableNames: Bool = false, companions: Set<Companion> = [],
        transcriptTypes: [TranscriptFormat] = TranscriptFormat.allCases, tag: Bool = false, playlist: Bool = false,
        onEpisode: String? = nil
    ) {
        self.nameTemplate = nameTemplate
        self.portableNames = portableNames
        self.companions = companions
        self.transcriptTypes = transcriptTypes
        self.tag = tag
        self.playlist = playlist
        self.onEpisode = onEpisode
    }

    /// True when an episode's files need what only its feed says (show notes, season and episode
    /// numbers, transcripts, artwork), beyond what the listing keeps.
    var needsFeedDetails: Bool {
        tag || !companions.isEmpty || nameTemplate.usesFeedDetails
    }

    /// How a download record keeps the settings its episode was asked with, so that `resume`
    /// finishes it as it was begun (`StoredSettings`); nil for the defaults.
    var stored: String? {
        guard self != LibrarySettings() else { return nil }
        var settings = Settings()
        settings.library = self
        return StoredSettings(settings, for: .download).text
    }

    /// The settings `stored` wrote; a record this version cannot read is an error.
    init(stored text: String) throws(StoredSettingsError) {
        self = try StoredSettings(stored: text).settings(for: .download).library
    }
}

extension NameTemplate {
    /// True when the template names a field only the feed knows (`{episode}`, `{season}`).
    var usesFeedDetails: Bool {
        (folders + [stem]).joined().contains { $0 == .field(.episode) || $0 == .field(.season) }
    }
}
