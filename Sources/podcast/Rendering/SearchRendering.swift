import PodcastKit
import PodcastText

/// How a search outcome is shown: a table, a JSON document, and notes about what is missing.
struct SearchRendering {
    let outcome: SearchOutcome

    private var isMusic: Bool { outcome.query.media == .music }
    private var isITunes: Bool { outcome.directory == ITunesCatalog.info.name }
    private var directoryTitle: String { SearchDirectories.named(outcome.directory)?.info.title ?? outcome.directory }

    /// The numbered table: podcasts with their feeds, or songs with their previews. Names give
    /// way first; a URL is never cut (a cut URL is useless) but left out when there is no room.
    var table: TextTable {
        let columns = isMusic
            ? [
                TextTable.Column("#", alignment: .right),
                TextTable.Column("Song", minWidth: 20, shrinkStage: 1),
                TextTable.Column("Artist", minWidth: 12, shrinkStage: 1),
                TextTable.Column("Genre", minWidth: 8, shrinkStage: 1),
                TextTable.Column("Preview", droppable: true),
            ]
            : [
                TextTable.Column("#", alignment: .right),
                TextTable.Column("Name", minWidth: 24, shrinkStage: 1),
                TextTable.Column("Author", minWidth: 12, shrinkStage: 1),
                TextTable.Column("Episodes", alignment: .right),
                TextTable.Column("Genre", minWidth: 8, shrinkStage: 1),
                TextTable.Column("Feed", droppable: true),
            ]
        let rows = outcome.results.map { result in
            isMusic
                ? [String(result.number), result.name, result.artist, result.genre ?? "", result.previewURL ?? "(no preview)"]
                : [String(result.number), result.name, result.artist, result.episodeCount.map(String.init) ?? "",
                   result.genre ?? "", result.feedURL ?? (isITunes ? "(no public feed)" : "(no feed)")]
        }
        return TextTable(columns: columns, rows: rows)
    }

    /// The contract's `{"query", "directory", "results"}` document, the same for every directory.
    var json: JSONValue {
        .object([
            ("query", .string(outcome.query.term)),
            ("directory", .string(outcome.directory)),
            ("results", .array(outcome.results.map { result in
                .object([
                    ("number", .int(result.number)),
                    ("id", .int(result.id)),
                    ("name", .string(result.name)),
                    ("artist", .string(result.artist)),
                    isMusic ? ("preview_url", .string(result.previewURL)) : ("feed_url", .string(result.feedURL)),
                    ("genre", .string(result.genre)),
                    ("episode_count", .int(result.episodeCount)),
                    ("artwork_url", .string(result.artworkURL)),
                    ("store_url", .string(result.storeURL)),
                    ("release_date", .string(result.releaseDate)),
                ])
            })),
        ])
    }

    /// What the user should know about results that are missing or unusable.
    var notes: [String] {
        var notes: [String] = []
        let kind = isMusic ? "songs" : "podcasts"
        if outcome.results.isEmpty {
            notes.append(isITunes
                ? "no \(kind) found for \"\(outcome.query.term)\" in the \(outcome.query.country) store; try other words or another --country"
                : "no \(kind) found for \"\(outcome.query.term)\" in \(directoryTitle); try other words or another --directory")
        }
        if outcome.skippedOtherKinds > 0 {
            notes.append("\(outcome.skippedOtherKinds) result\(outcome.skippedOtherKinds == 1 ? " was" : "s were") "
                + "not \(kind) and \(outcome.skippedOtherKinds == 1 ? "is" : "are") not shown")
        }
        let unusable = outcome.results.filter { isMusic ? $0.previewURL == nil : $0.feedURL == nil }
        if !unusable.isEmpty {
            let numbers = unusable.map { String($0.number) }.joined(separator: ", ")
            notes.append(isMusic
                ? "no preview for \(numbers): nothing to download"
                : isITunes
                ? "no public feed for \(numbers) (Apple-only shows): their episodes cannot be listed"
                : "no feed for \(numbers) in \(directoryTitle): their episodes cannot be listed")
        }
        return notes
    }

    /// What to type next, for a person at a terminal.
    var nextStep: String? {
        guard let first = outcome.results.first(where: { isMusic ? $0.previewURL != nil : $0.feedURL != nil }) else {
            return nil
        }
        return isMusic
            ? "Download a preview with: podcast download \(first.number)"
            : "List a podcast's episodes with: podcast episodes \(first.number)"
    }
}
