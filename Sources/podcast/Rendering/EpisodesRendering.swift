import Glibc
import PodcastKit
import PodcastText

/// How a feed's episodes are shown: a table and the contract's JSON document.
struct EpisodesRendering {
    let feed: Feed
    /// The address the feed is remembered under.
    let url: String
    /// How many episodes are listed (the newest).
    let count: Int
    /// What the progress buffer knows of the feed's episodes, by identity.
    let records: [String: DownloadRecord]
    /// How the feed was found, when a show's page or link was named rather than the feed.
    var resolution: FeedResolution? = nil

    /// The contract's state of `episode`: `new` unless the progress buffer says otherwise.
    private func state(of episode: Episode) -> String {
        state(of: record(of: episode))
    }

    private func state(of record: DownloadRecord?) -> String {
        record?.listedState?.rawValue ?? "new"
    }

    private func path(of record: DownloadRecord?) -> String? {
        record.flatMap { $0.listedState == .downloaded ? $0.path : nil }
    }

    /// The episode's download record; the identity is not even worked out for a feed with none.
    private func record(of episode: Episode) -> DownloadRecord? {
        records.isEmpty ? nil : records[episode.identity]
    }

    private var episodes: ArraySlice<Episode> { feed.episodes.prefix(count) }

    /// Number, date, duration, size, state and title. On a narrow terminal titles shrink to a
    /// readable width, then Size and Duration are left out, in that order.
    var table: TextTable {
        let columns = [
            TextTable.Column("#", alignment: .right),
            TextTable.Column("Date"),
            TextTable.Column("Duration", alignment: .right, droppable: true),
            TextTable.Column("Size", alignment: .right, droppable: true),
            TextTable.Column("State"),
            TextTable.Column("Title", minWidth: 24, shrinkStage: 1),
        ]
        let rows = episodes.enumerated().map { index, episode in
            [
                String(index + 1),
                episode.published.map(UTCDate.day) ?? "",
                episode.duration.map(Self.clock) ?? "",
                episode.enclosure?.length.map(ByteCount.text) ?? "",
                episode.enclosure == nil ? "no media" : state(of: episode),
                episode.title,
            ]
        }
        return TextTable(columns: columns, rows: rows)
    }

    /// The contract's `{"feed", "episodes"}` document; each episode's part is made as it is written.
    var json: JSONValue {
        .object([
            ("feed", .object([
                ("title", .string(feed.title)),
                ("url", .string(url)),
                ("link", .string(feed.link)),
                ("description", .string(feed.description)),
                ("author", .string(feed.author)),
                ("image", .string(feed.image)),
                ("language", .string(feed.language)),
            ] + resolved)),
            ("episodes", .streamedArray(count: count) { index, writer in
                writeEpisode(feed.episodes[index], number: index + 1, to: &writer)
            }),
        ])
    }

    /// `"resolved_from"` when the feed was found from a page or a link: the link, how it was
    /// found, and every feed the page names (the chosen one among them), for a script to offer
    /// the others. Absent for a feed named as such, so that document is unchanged.
    private var resolved: [(String, JSONValue)] {
        guard let resolution else { return [] }
        let via = switch resolution.way {
        case .appleLookup: "itunes-lookup"
        case .alternate: "alternate-link"
        case .anchor: "page-link"
        }
        return [("resolved_from", .object([
            ("link", .string(resolution.link)), ("via", .string(via)),
            ("feeds", .array(resolution.feeds.map { .string($0) })),
        ]))]
    }

    private func writeEpisode(_ episode: Episode, number: Int, to writer: inout JSONWriter) {
        let record = record(of: episode)
        writer.beginObject()
        writer.member("number", number)
        writer.member("guid", episode.guid)
        writer.member("title", episode.title)
        writer.member("published", episode.published)
        writer.member("duration", episode.duration)
        writer.member("description", episode.description)
        writer.member("link", episode.link)
        writer.member("image", episode.image)
        writer.member("season", episode.season)
        writer.member("episode", episode.episodeNumber)
        writer.member("episode_type", episode.episodeType)
        writer.key("enclosure")
        if let enclosure = episode.enclosure {
            writer.beginObject()
            writer.member("url", enclosure.url)
            writer.member("type", enclosure.type)
            writer.member("length", enclosure.length.map { Int($0) })
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("transcripts")
        writer.beginArray()
        for transcript in episode.transcripts {
            writer.beginObject()
            writer.member("url", transcript.url)
            writer.member("type", transcript.type)
            writer.endObject()
        }
        writer.endArray()
        writer.member("chapters_url", episode.chaptersURL)
        writer.member("state", state(of: record))
        writer.member("path", path(of: record))
        writer.endObject()
    }

    /// `1:02:05` or `45:07`.
    /// The time `bytes` more take at `speed` bytes a second, as a clock; nil when it cannot be
    /// told (no speed) or is past any sense (over 99 hours: a speed of a few bytes a second).
    static func timeLeft(bytes: Int64, speed: Double) -> String? {
        let seconds = Double(bytes) / speed
        guard speed > 0, seconds.isFinite, seconds < 99 * 3600 else { return nil }
        return clock(Int(seconds))
    }

    static func clock(_ seconds: Int) -> String {
        let hours = seconds / 3600
        let minutes = seconds / 60 % 60
        let rest = seconds % 60
        let mm = minutes < 10 && hours > 0 ? "0\(minutes)" : "\(minutes)"
        let ss = rest < 10 ? "0\(rest)" : "\(rest)"
        return hours > 0 ? "\(hours):\(mm):\(ss)" : "\(mm):\(ss)"
    }
}
