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

    /// The defaults: the standard names, nothing else.
    public init(
        nameTemplate: NameTemplate = .standard, portableNames: Bool = false, companions: Set<Companion> = [],
        transcriptTypes: [TranscriptFormat] = TranscriptFormat.allCases, tag: Bool = false, playlist: Bool = false
    ) {
        self.nameTemplate = nameTemplate
        self.portableNames = portableNames
        self.companions = companions
        self.transcriptTypes = transcriptTypes
        self.tag = tag
        self.playlist = playlist
    }

    /// True when an episode's files need what only its feed says (show notes, season and episode
    /// numbers, transcripts, artwork), beyond what the listing keeps.
    var needsFeedDetails: Bool {
        tag || !companions.isEmpty || nameTemplate.usesFeedDetails
    }

    /// How a download record keeps the settings its episode was asked with, so that `resume`
    /// finishes it as it was begun: one `key=value` line each (a template holds no line breaks);
    /// nil for the defaults.
    var stored: String? {
        guard self != LibrarySettings() else { return nil }
        var lines: [String] = []
        if nameTemplate != .standard { lines.append("template=" + nameTemplate.text) }
        if portableNames { lines.append("portable=1") }
        if !companions.isEmpty { lines.append("with=" + Companion.list(companions)) }
        if transcriptTypes != TranscriptFormat.allCases { lines.append("transcripts=" + transcriptTypes.map(\.rawValue).joined(separator: ",")) }
        if tag { lines.append("tag=1") }
        if playlist { lines.append("playlist=1") }
        return lines.joined(separator: "\n")
    }

    /// The settings `stored` wrote; what does not read (another version's keys, a value no longer
    /// valid) keeps its default.
    init(stored text: String) {
        self.init()
        for line in text.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "template": if let template = try? NameTemplate(pair[1]) { nameTemplate = template }
            case "portable": portableNames = pair[1] == "1"
            case "with": companions = (try? Companion.set(from: [pair[1]])) ?? []
            case "transcripts": transcriptTypes = (try? TranscriptFormat.order(from: [pair[1]])) ?? TranscriptFormat.allCases
            case "tag": tag = pair[1] == "1"
            case "playlist": playlist = pair[1] == "1"
            default: continue
            }
        }
    }
}

extension NameTemplate {
    /// True when the template names a field only the feed knows (`{episode}`, `{season}`).
    var usesFeedDetails: Bool {
        (folders + [stem]).joined().contains { $0 == .field(.episode) || $0 == .field(.season) }
    }
}
