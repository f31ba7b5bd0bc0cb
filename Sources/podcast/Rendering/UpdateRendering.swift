import FoundationEssentials
import PodcastKit
import PodcastText

/// How `podcast update` is told: a line per feed with news, a summary, the list of what is new
/// (`--check`), and the contract's JSON document.
struct UpdateRendering {
    let outcome: SubscriptionUpdate.Outcome
    /// Every subscription, as `podcast subscriptions` numbers them.
    let numbers: [Subscription]
    let elapsed: Duration

    /// The lines a feed's report gives: its moves, warnings and news; an error line when it failed.
    static func lines(for report: SubscriptionUpdate.FeedReport) -> [String] {
        let name = "feed \"\(report.subscription.title)\""
        var lines = report.moves.map { "note: " + $0 } + report.warnings.map { "warning: " + $0 }
        switch report.result {
        case .failed:
            lines.append("error: \(name): \(report.error ?? "failed")")
        case .gone:
            lines.append("warning: \(name) (\(report.subscription.url)) answered 410 Gone: it is skipped from now on; "
                + "unsubscribe it, or subscribe to its new address")
        case .updated, .moved, .unchanged:
            if report.new > 0 { lines.append("\(name): \(Plural.count(report.new, "new episode"))") }
        }
        return lines
    }

    /// True when every feed was fetched (or is gone) and every episode asked for is on disk.
    var succeeded: Bool {
        !outcome.feeds.contains { $0.result == .failed } && outcome.results.allSatisfy(\.succeeded)
    }

    /// `updated 5 feeds (2 with new episodes, 2 without, 1 failed); downloaded 3, skipped 0,
    /// failed 0: 1.2 MiB in 2.1 s`, with moved and gone feeds counted too.
    func summary(check: Bool) -> String {
        let feeds = outcome.feeds
        let count = { (result: Subscription.Result) in feeds.count { $0.result == result } }
        // New in this fetch, or waiting from before (a baseline's newest, a --check, a failed try).
        let waiting = Set(outcome.pending.map(\.subscription.id))
        let read = feeds.filter { $0.result != .failed && $0.result != .gone }
        let withNews = read.count { $0.new > 0 || waiting.contains($0.subscription.id) }
        var parts = ["\(withNews) with new episodes", "\(read.count - withNews) without"]
        for result in [Subscription.Result.moved, .gone] where count(result) > 0 {
            parts.append("\(count(result)) \(result.rawValue)")
        }
        if count(.failed) > 0 { parts.append("\(count(.failed)) failed: " + failureCauses) }
        var head = "updated \(Plural.count(feeds.count, "feed")) (\(parts.joined(separator: ", ")))"
        if outcome.unfetched > 0 { head += "; \(Plural.count(outcome.unfetched, "feed")) not fetched (stopped first)" }
        if check {
            let waiting = outcome.pending.reduce(0) { $0 + $1.items.count }
            return head + "; \(Plural.count(waiting, "new episode")) waiting (--check downloads nothing)"
        }
        guard !outcome.results.isEmpty else { return head + "; nothing new to download" }
        return head + "; " + DownloadRendering(results: outcome.results, elapsed: elapsed).summary
    }

    /// Why feeds failed, most common first: `2 timed out, 1 HTML page`.
    private var failureCauses: String {
        var counts: [(cause: String, count: Int)] = []
        for feed in outcome.feeds where feed.result == .failed {
            let cause = feed.cause ?? "error"
            if let index = counts.firstIndex(where: { $0.cause == cause }) { counts[index].count += 1 } else { counts.append((cause, 1)) }
        }
        return counts.sorted { $0.count > $1.count }.map { "\($0.count) \($0.cause)" }.joined(separator: ", ")
    }

    /// `--check`: each subscription with new episodes, then its episodes, newest first.
    var pendingLines: [String] {
        outcome.pending.flatMap { subscription, items in
            let marked = subscription.settings.noDownload ? " (not downloaded: --no-download)" : ""
            return ["\(subscription.title): \(Plural.count(items.count, "new episode"))\(marked)"]
                + items.map { "  " + ($0.published.map(UTCDate.day) ?? "          ") + "  " + $0.title.singleLine() }
        }
    }

    /// `{"feeds": [{"number", "title", "url", "result", "new", "error"}], "results": [...]}`, and
    /// with `--check` the episodes waiting: `"pending": [{"number", "subscription", "guid", "title", "published"}]`.
    var json: JSONValue {
        .object([
            ("feeds", .array(outcome.feeds.map { feed in
                .object([
                    ("number", .int(numbers.firstIndex { $0.id == feed.subscription.id }.map { $0 + 1 })),
                    ("title", .string(feed.subscription.title)),
                    ("url", .string(feed.subscription.url)),
                    ("result", .string(feed.result.rawValue)),
                    ("new", .int(feed.new)),
                    ("error", .string(feed.error)),
                ])
            })),
            ("results", DownloadRendering.json(outcome.results)),
            ("pending", .array(outcome.pending.flatMap { subscription, items in
                items.map { item in
                    .object([
                        ("number", .int(numbers.firstIndex { $0.id == subscription.id }.map { $0 + 1 })),
                        ("subscription", .string(subscription.title)),
                        ("guid", .string(item.guid)),
                        ("title", .string(item.title)),
                        ("published", .string(item.published.map(UTCDate.iso8601))),
                    ])
                }
            })),
        ])
    }

    /// The document of an update with no subscriptions.
    static var emptyJSON: JSONValue { .object([("feeds", .array([])), ("results", .array([])), ("pending", .array([]))]) }
}
