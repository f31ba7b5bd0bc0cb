import FoundationEssentials
import PodcastKit
import PodcastText

/// What `subscribe` and `import` did to each feed: a line each, or the contract's JSON.
struct SubscribeRendering {
    /// One feed's outcome.
    struct Row {
        /// `added`, `changed`, `exists` (the contract's words) or `failed`.
        enum Status: String {
            case added, changed, exists, failed

            init(_ status: SubscribeStatus) {
                self = switch status {
                case .added: .added
                case .changed, .revived: .changed
                case .exists: .exists
                }
            }
        }

        var title: String?
        var url: String
        var status: Status
        /// Episodes the feed had (0 when it was not fetched).
        var episodes: Int
        /// Of them, those the next update downloads.
        var new: Int
        /// True when it was a gone subscription (410) fetched again from now on.
        var revived = false

        /// The row of a feed `subscribe` or `import` recorded as `status`.
        init(title: String?, url: String, status: SubscribeStatus, episodes: Int, new: Int) {
            self.init(title: title, url: url, status: Status(status), episodes: episodes, new: new)
            revived = status == .revived
        }

        /// The row of `status` (`failed` for a feed that could not be subscribed to).
        init(title: String?, url: String, status: Status, episodes: Int, new: Int) {
            self.title = title
            self.url = url
            self.status = status
            self.episodes = episodes
            self.new = new
        }
    }

    let rows: [Row]
    /// Every subscription, as `podcast subscriptions` numbers them.
    let subscriptions: [Subscription]

    /// Prints the lines (stderr) or the JSON document (stdout).
    func report(json: Bool, console: Console) {
        if json {
            console.print(JSONValue.object([("subscriptions", .array(rows.map { row in
                .object([
                    ("number", .int(subscriptions.firstIndex { $0.url == row.url }.map { $0 + 1 })),
                    ("title", .string(row.title)),
                    ("url", .string(row.url)),
                    ("status", .string(row.status.rawValue)),
                ])
            }))]).serialized(pretty: console.stdoutIsTerminal))
            // `changed` is all the contract's status says; that a gone feed came back is worth a line.
            for row in rows where row.revived { console.message(line(row)) }
            return
        }
        for row in rows {
            console.message(line(row))
        }
    }

    private func line(_ row: Row) -> String {
        let name = "\"\(row.title ?? row.url)\" (\(row.url))"
        if row.revived {
            return "revived: \(name) had answered 410 Gone; podcast update fetches it again, with its history"
        }
        switch row.status {
        case .added where row.episodes == 0:
            return "subscribed to \(name); podcast update downloads what it publishes"
        case .added:
            let downloads = row.new == 0 ? "none of them" : row.new == 1 ? "the newest" : "the newest \(row.new)"
            return "subscribed to \(name): \(Plural.count(row.episodes, "episode")) so far, of which podcast update downloads \(downloads)"
        case .changed: return "changed the settings of \(name)"
        case .exists: return "already subscribed to \(name)"
        case .failed: return "could not subscribe to \(row.url)"
        }
    }
}

/// `podcast subscriptions`: the numbered table, or the contract's JSON.
struct SubscriptionsRendering {
    let summaries: [SubscriptionSummary]

    /// Number, title, episodes, new, downloaded, last update and its result, feed URL.
    var table: TextTable {
        let columns = [
            TextTable.Column("#", alignment: .right),
            TextTable.Column("Title", minWidth: 16, shrinkStage: 1),
            TextTable.Column("Episodes", alignment: .right),
            TextTable.Column("New", alignment: .right),
            TextTable.Column("Downloaded", alignment: .right),
            TextTable.Column("Last update", droppable: true),
            TextTable.Column("Feed", droppable: true),
        ]
        let rows = summaries.enumerated().map { index, summary in
            let subscription = summary.subscription
            return [
                String(index + 1), subscription.title, String(summary.episodes), String(summary.new), String(summary.downloaded),
                Self.lastUpdate(subscription), subscription.url,
            ]
        }
        return TextTable(columns: columns, rows: rows)
    }

    /// `2026-11-25 08:00 updated`, `never`, or `… failed` / `gone`.
    static func lastUpdate(_ subscription: Subscription) -> String {
        guard let date = subscription.lastUpdate else { return subscription.isGone ? "gone" : "never" }
        return UTCDate.minute(date) + " " + (subscription.lastResult?.rawValue ?? "")
    }

    /// `{"subscriptions": [{"number", "title", "url", "episodes", "new", "downloaded", "last_update",
    /// "last_result", "first", "keep", "episodes_dir", "name_template"}]}`, plus `html_url`,
    /// `no_download`, `with` (its own companion files; null: the run's), `on_episode` (its own
    /// command; null: the run's), `gone` and `last_error`.
    var json: JSONValue {
        .object([("subscriptions", .array(summaries.enumerated().map { index, summary in
            let subscription = summary.subscription
            let settings = subscription.settings
            return .object([
                ("number", .int(index + 1)),
                ("title", .string(subscription.title)),
                ("url", .string(subscription.url)),
                ("html_url", .string(subscription.htmlURL)),
                ("episodes", .int(summary.episodes)),
                ("new", .int(summary.new)),
                ("downloaded", .int(summary.downloaded)),
                ("last_update", .string(subscription.lastUpdate.map(UTCDate.iso8601))),
                ("last_result", .string(subscription.lastResult?.rawValue)),
                ("last_error", .string(subscription.lastError)),
                ("first", .int(settings.first)),
                ("keep", .int(settings.keep)),
                ("episodes_dir", .string(settings.episodesDirectory)),
                ("name_template", .string(settings.nameTemplate?.text)),
                ("no_download", .bool(settings.noDownload)),
                ("with", settings.companions.map { .array($0.sorted().map { .string($0.rawValue) }) } ?? .null),
                ("on_episode", .string(settings.onEpisode)),
                ("gone", .bool(subscription.isGone)),
            ])
        }))])
    }
}
