import ArgumentParser
import PodcastKit

/// The filters that narrow a `<selection>` (`download`, `cancel`, `pause`, `delete`).
struct SelectionFilterOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only episodes published on or after this date (2026-11-01, or 2026-11-01T08:00; UTC).", valueName: "date"))
    var since: String?

    @Option(help: ArgumentHelp("Only episodes published on or before this date (inclusive; UTC).", valueName: "date"))
    var until: String?

    @Option(help: ArgumentHelp("Only episodes whose title matches this regular expression (ignoring case).", valueName: "regex"))
    var match: String?

    @Option(help: ArgumentHelp("Only the newest N of what is left.", valueName: "N"))
    var latest: Int?

    func validate() throws {
        for (name, value, start) in [("--since", since, true), ("--until", until, false)] {
            if let value, SelectionFilter.date(value, start: start) == nil {
                throw ValidationError("\(name) takes a date such as 2026-11-20 or 2026-11-20T08:00, not \"\(value)\"")
            }
        }
        if let match {
            do { _ = try SelectionFilter.regex(match) } catch { throw ValidationError(error.description) }
        }
        if let latest, latest < 1 { throw ValidationError("--latest must be 1 or more, not \(latest)") }
    }

    /// The filter these options make.
    var filter: SelectionFilter {
        SelectionFilter(
            since: since.flatMap { SelectionFilter.date($0, start: true) }, until: until.flatMap { SelectionFilter.date($0, start: false) },
            match: match, latest: latest)
    }
}
