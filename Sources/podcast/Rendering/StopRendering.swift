import PodcastKit

/// What `pause` and `cancel` report: a line per download stopped, one for any process that has not
/// answered yet, or the JSON document `{"downloads": [{"guid", "title", "podcast", "state"}]}`
/// where `state` is `paused`/`cancelled`, or `downloading` for a download still running.
struct StopRendering {
    /// `paused` or `cancelled`.
    let verb: String
    let outcome: StopOutcome

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
        guard !done.isEmpty || !unanswered.isEmpty || !outcome.finishedFirst.isEmpty else {
            console.message("nothing to \(verb == "paused" ? "pause" : "cancel"): no download is \(verb == "paused" ? "queued or running" : "unfinished")")
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
}
