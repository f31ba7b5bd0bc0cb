import ArgumentParser
import PodcastKit

/// `podcast subscribe <feed>...`: remember feeds for `podcast update`, each with its baseline.
struct Subscribe: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Subscribe to feeds, so that podcast update downloads what they publish.",
        discussion: """
            <feed> is an http(s) URL, a number from the last search, or itunes:<id>. Each feed is \
            fetched now: its episodes so far are its baseline, of which update downloads only the \
            newest --first (default 1); every episode published later is new and downloaded by the \
            next update. Subscribing again to a feed (or to its old address after it moved) changes \
            the settings given and nothing else.

            Examples:
              podcast subscribe https://feeds.example.com/show.xml
              podcast subscribe 1 3 --first 0 --keep 5
              podcast subscribe itunes:1440215666 --episodes-dir ~/Audiobooks --no-download
            """
    )

    @Argument(help: "The feeds: URLs, numbers from the last search, or itunes:<id>.")
    var feeds: [String]

    @OptionGroup
    var settings: SubscriptionOptions

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        let reader = try context.feedReader(store: store)
        let change = settings.change(environment: context.environment)
        var rows: [SubscribeRendering.Row] = []
        for feed in feeds {
            do {
                rows.append(try subscribe(feed, reader: reader, change: change, store: store, console: context.console))
            } catch let error as UsageError {
                throw error
            } catch {
                context.console.error("\(String(describing: error).singleLine())")
                rows.append(SubscribeRendering.Row(title: nil, url: feed, status: .failed, episodes: 0, new: 0))
            }
        }
        SubscribeRendering(rows: rows, subscriptions: try store.subscriptions()).report(json: output.json, console: context.console)
        if rows.contains(where: { $0.status == .failed }) { throw ExitCode(ExitStatus.operationFailed) }
    }

    /// Fetches `feed` and records the subscription, with its baseline when it is new.
    private func subscribe(
        _ feed: String, reader: FeedReader, change: SubscriptionSettingsChange, store: StateStore, console: Console
    ) throws -> SubscribeRendering.Row {
        let source = try FeedSource(argument: feed)
        if case .file(let path) = source {
            throw UsageError("\(path) is a file: podcast update fetches subscriptions over http(s); give the feed's URL")
        }
        let fetched = try reader.read(source, refresh: false)
        for move in fetched.moves { console.note(move) }
        for warning in fetched.result.warnings { console.warning(warning) }
        let feed = fetched.result.feed
        let (subscription, status) = try store.subscribe(url: fetched.url, title: feed.title, htmlURL: feed.link, change: change)
        var new = 0
        if !subscription.hasBaseline {
            // With the answer's validators, the first update can be a conditional GET.
            let record = SubscriptionRefreshRecord(
                id: subscription.id, address: subscription.url, result: .updated, title: feed.title, htmlURL: feed.link,
                cacheEntry: fetched.validators, episodes: Listing(feed: feed, url: subscription.url).items)
            new = try store.recordRefresh(record).new
        }
        return SubscribeRendering.Row(title: subscription.title, url: subscription.url, status: .init(status), episodes: feed.episodes.count, new: new)
    }
}
