import PodcastKit

/// What `pause` and `cancel` report: a line per download stopped, one for any process that has not
/// answered yet, or the JSON document `{"downloads": [{"guid", "title", "podcast", "state"}]}`
/// where `state` is `paused`/`cancelled`, or `downloading` for a download still running.
struct StopRendering {
    /// `paused` or `cancelled`.
    let verb: String
    let outcome: StopOutcome
    /// The last listing's numbers and titles, by episode (`ListingSelection.listed`).
    var listed: [EpisodeKey: (number: Int, title: String)] = [:]

    func report(json: Bool, console: Console) {
        let unanswered = outcome.unanswered
        let done = (outcome.stopped + outcome.asked).filter { record in
            !unanswered.contains { $0.key == record.key }
        }
        if json {
            let entry = { (record: DownloadRecord, state: String) -> JSONValue in
                .object([
                    ("guid", .string(record.guid)), ("title", .string(record.title)),
                    ("podcast", .string(record.podcastTitle)), ("state", .string(state)),
                ])
            }
            console.print(JSONValue.object([
                ("downloads", .array(
                    done.map { entry($0, verb) } + unanswered.map { entry($0, "downloading") }
                        + outcome.finishedFirst.map { entry($0, "downloaded") })),
            ]).serialized(pretty: console.stdoutIsTerminal))
        }
        for record in outcome.notStopped {
            console.message(Self.notStopped(record, verb: verb, number: listed[record.key]?.number))
        }
        for key in outcome.neverDownloaded {
            let listing = listed[key]
            console.message("\(Self.name(listing?.title ?? key.identity, number: listing?.number)) is not being downloaded: nothing to \(Self.infinitive(verb))")
        }
        let named = !outcome.notStopped.isEmpty || !outcome.neverDownloaded.isEmpty
        guard !done.isEmpty || !unanswered.isEmpty || !outcome.finishedFirst.isEmpty || named else {
            console.message("nothing to \(Self.infinitive(verb)): no download is \(verb == "paused" ? "queued or running" : "unfinished")")
            return
        }
        for record in done { console.message("\(verb) \"\(record.title)\"") }
        for record in outcome.finishedFirst {
            console.message("\"\(record.title)\" finished downloading before it could be \(verb); kept at \(record.path ?? "")")
        }
        for record in unanswered {
            console.warning("process \(record.owner?.pid ?? 0) has not stopped \"\(record.title)\" yet; it will at its next progress report")
        }
    }

    /// `pause` for `paused`, `cancel` for `cancelled`.
    private static func infinitive(_ verb: String) -> String {
        verb == "paused" ? "pause" : "cancel"
    }

    /// `episode 2 ("Title")`, or `"Title"` for an episode not in the last listing.
    private static func name(_ title: String, number: Int?) -> String {
        number.map { "episode \($0) (\"\(title)\")" } ?? "\"\(title)\""
    }

    /// What is true of a download that `pause` or `cancel` (`verb`) was asked for by number but
    /// does not apply to, and what to do instead: a paused one is continued by downloading it
    /// again (from its resume data), a finished one is never cancelled.
    static func notStopped(_ record: DownloadRecord, verb: String, number: Int?) -> String {
        let name = name(record.title, number: number)
        let again = number.map { "podcast download \($0)" }
        switch record.state {
        case .paused:
            let how = again.map { "\($0) continues it from where it stopped (podcast resume continues every unfinished download)" }
                ?? "podcast resume continues it"
            return "\(name) is already paused; \(how)"
        case .failed:
            return "\(name) is not running: it failed (podcast status says why); \(again ?? "podcast resume") tries it again"
        case .downloaded, .deleted:
            let kept = record.path.map { ": \($0)" } ?? ""
            return verb == "paused"
                ? "\(name) is already downloaded\(kept)"
                : "\(name) is already downloaded, and cancel never touches a finished episode (podcast delete removes its file)\(kept)"
        case .queued, .downloading:
            return "\(name) is \(record.state.rawValue)"
        }
    }
}
