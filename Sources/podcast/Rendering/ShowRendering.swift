import PodcastKit
import PodcastText

/// How `show` presents one episode: labelled details, then its show notes wrapped to the
/// width; or `{"number", "guid", "title", "podcast", "published", "duration", "size", "type",
/// "url", "link", "state", "path", "description"}`.
struct ShowRendering {
    let item: ListingItem
    /// The feed's entry, when the feed still has it (nil for a music preview).
    let episode: Episode?
    let listing: Listing
    /// What the progress buffer knows of it.
    let record: DownloadRecord?

    private var podcast: String {
        switch listing.source {
        case .feed(_, let title): title
        case .previews(let term): "previews of \"\(term)\""
        }
    }

    private var state: String {
        if item.enclosureURL == nil { return "no media" }
        return record?.listedState?.rawValue ?? "new"
    }

    private var path: String? {
        record?.listedState == .downloaded ? record?.path : nil
    }

    /// The details, then a blank line and the show notes.
    func lines(width: Int) -> [String] {
        let size = item.enclosureLength.map { ByteCount.text($0) + (item.enclosureType.map { " (\($0))" } ?? "") } ?? item.enclosureType
        let details: [(String, String?)] = [
            ("Title", item.title),
            ("Podcast", podcast),
            ("Published", item.published.map(UTCDate.day)),
            ("Duration", episode?.duration.map(EpisodesRendering.clock)),
            ("Size", size),
            ("Media", item.enclosureURL),
            ("Link", episode?.link),
            ("State", state + (path.map { ": \($0)" } ?? "")),
        ]
        var lines = details.compactMap { label, value in value.map { DisplayWidth.pad(label + ":", to: 11, alignment: .left) + $0 } }
        if let notes = episode?.description, !notes.isEmpty {
            lines.append("")
            lines += TextWrap.lines(notes, width: max(20, width - 1))
        }
        return lines
    }

    var json: JSONValue {
        .object([
            ("number", .int(item.number)),
            ("guid", .string(item.guid)),
            ("title", .string(item.title)),
            ("podcast", .string(podcast)),
            ("published", .string(item.published.map(UTCDate.iso8601))),
            ("duration", .int(episode?.duration)),
            ("size", .int(item.enclosureLength.map(Int.init))),
            ("type", .string(item.enclosureType)),
            ("url", .string(item.enclosureURL)),
            ("link", .string(episode?.link)),
            ("state", .string(state)),
            ("path", .string(path)),
            ("description", .string(episode?.description)),
        ])
    }
}
