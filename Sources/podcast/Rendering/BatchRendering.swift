import PodcastKit
import PodcastText

/// How a background batch is shown: its JSON summary (the `download --json` results with the
/// batch's number and times) and one line for `status`.
struct BatchRendering {
    let batch: BackgroundBatch

    /// `{"batch", "created", "finished", "results": [{"number", "guid", "title", "state", "path", "bytes", "error"}]}`;
    /// `bytes` is the finished file's size.
    var json: JSONValue {
        .object([
            ("batch", .int(batch.id)),
            ("created", .string(UTCDate.iso8601(batch.created))),
            ("finished", .string(batch.finished.map(UTCDate.iso8601))),
            ("results", DownloadRendering.json(batch.results)),
        ])
    }

    /// `batch 3 finished 2026-11-20T08:00:00Z: downloaded 2, skipped 0, failed 1; summary …/3.json`,
    /// or `batch 4 open: 2 of 5 episodes settled`.
    var line: String {
        guard let finished = batch.finished else {
            return "batch \(batch.id) open: \(batch.results.count) of \(Plural.count(batch.results.count + batch.pending, "episode")) settled"
        }
        let counts = DownloadRendering.counts(batch.results)
        return "batch \(batch.id) finished \(UTCDate.iso8601(finished)): \(counts)" + (batch.summaryPath.map { "; summary \($0)" } ?? "")
    }
}
