import ArgumentParser
import PodcastKit
import PodcastText

/// `podcast subscribe <feed>...`: remember feeds for `podcast update`, each with its baseline.
struct Subscribe: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Subscribe to feeds, so that podcast update downloads what they publish.",
        discussion: """
            <feed> is an http(s) URL, a number from the last search, or itunes:<id>; a show's page \
            (an Apple Podcasts or Overcast link, or a web page naming its feed) stands for its feed, \
            with a note saying which. Each feed is \
            fetched now: its episodes so far are its baseline, of which update downloads only the \
            newest --first (default 1); every episode published later is new and downloaded by the \
            next update. Subscribing again to a feed (or to its old address after it moved) changes \
            the settings given and nothing else; a changed --first applies to the baseline while \
            none of it has been downloaded; a feed that had answered 410 Gone is revived, with its \
            history. A new or changed --keep says how many files the next update may delete.

            Each feed gets its line (added, changed, already subscribed, or could not subscribe); \
            one that cannot be fetched does not stop the others, and the exit code is then 1. A \
            malformed argument (another scheme, a file) is a usage error before anything is done.

            Examples:
              podcast subscribe https://feeds.example.com/show.xml
              podcast subscribe 1 3 --first 0 --keep 5
              podcast subscribe itunes:1440215666 --no-download
              podcast subscribe 2 --episodes-dir ~/Audiobooks
            """
    )

    @Argument(help: "The feeds: URLs (of feeds or shows' pages), numbers from the last search, or itunes:<id>.")
    var feeds: [String]

    @OptionGroup
    var settings: SubscriptionOptions

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        // Every argument is read before anything is done: a malformed one (another scheme, a
        // file) is a usage error that leaves every feed as it was.
        let sources = try feeds.map(Self.source)
        let store = try context.openStore()
        let reader = try context.feedReader(store: store)
        let change = try settings.change(environment: context.environment)
        var rows: [SubscribeRendering.Row] = []
        var notes: [String] = []
        // One feed that cannot be fetched (or a search number with no feed) is that feed's
        // failure, reported with the others: it never hides what was subscribed before it.
        for (feed, source) in zip(feeds, sources) {
            do {
                let (row, subscription) = try subscribe(source, reader: reader, change: change, store: store, console: context.console)
                rows.append(row)
                if let note = try keepNote(subscription, status: row.status, store: store) { notes.append(note) }
            } catch {
                context.console.error("\(String(describing: error).singleLine())")
                rows.append(SubscribeRendering.Row(title: nil, url: feed, status: .failed, episodes: 0, new: 0))
            }
        }
        SubscribeRendering(rows: rows, subscriptions: try store.subscriptions.all()).report(json: output.json, console: context.console)
        for note in notes { context.console.note(note) }
        if rows.contains(where: { $0.status == .failed }) { throw ExitCode(ExitStatus.operationFailed) }
    }

    /// What `feed` names; a file is refused, since `update` fetches subscriptions over http(s).
    private static func source(_ feed: String) throws(UsageError) -> FeedSource {
        let source = try FeedSource(argument: feed)
        if case .file(let path) = source {
            throw UsageError("\(path) is a file: podcast update fetches subscriptions over http(s); give the feed's URL")
        }
        return source
    }

    /// Fetches `source` and records the subscription, with its baseline when it is new.
    private func subscribe(
        _ source: FeedSource, reader: FeedReader, change: SubscriptionSettingsChange, store: StateStore, console: Console
    ) throws -> (SubscribeRendering.Row, Subscription) {
        let fetched = try reader.read(source, refresh: false)
        for move in fetched.notes { console.note(move) }
        for warning in fetched.result.warnings { console.warning(warning) }
        let feed = fetched.result.feed
        let (subscription, status) = try store.subscriptions.subscribe(url: fetched.url, title: feed.title, htmlURL: feed.link, change: change)
        var new = 0
        if !subscription.hasBaseline {
            // With the answer's validators, the first update can be a conditional GET.
            let record = SubscriptionRefreshRecord(
                id: subscription.id, address: subscription.url, result: .updated, title: feed.title, htmlURL: feed.link,
                cacheEntry: fetched.validators, episodes: Listing(feed: feed, url: subscription.url).items)
            new = try store.subscriptions.recordRefresh(record).new
        }
        let row = SubscribeRendering.Row(title: subscription.title, url: subscription.url, status: status, episodes: feed.episodes.count, new: new)
        return (row, subscription)
    }

    /// With `--keep N` given and taken (a new or changed subscription), how many of the files
    /// podcast downloaded for it the next update may delete, said now rather than discovered
    /// after the update; nil when none.
    private func keepNote(_ subscription: Subscription, status: SubscribeRendering.Row.Status, store: StateStore) throws -> String? {
        guard settings.keep != nil, status == .added || status == .changed, let keep = subscription.settings.keep else { return nil }
        let doomed = KeepRule.toDelete(try store.subscriptions.filesDownloaded(by: subscription), keep: keep).count
        let others = try store.subscriptions.filesNotDownloaded(by: subscription)
        guard doomed > 0 || others > 0 else { return nil }
        let untouched = others == 0 ? "" : "; \(Plural.count(others, "other file")) of it, downloaded by hand or before podcast "
            + "recorded why, \(others == 1 ? "is" : "are") never deleted by keep"
        return "keep \(keep): the next update may delete \(Plural.count(doomed, "file")) podcast downloaded for \"\(subscription.title)\" "
            + "(the oldest beyond the newest \(keep))" + untouched
    }
}
