import FoundationEssentials
import Glibc

/// `podcast update`: every due subscription's feed fetched at once (`FeedRound`), what each fetch
/// showed recorded with its triage (`EpisodeTriage`), then every new episode downloaded through
/// the same batch as `podcast download`, then `keep` applied once the new files are in place.
///
/// One failing feed or episode never stops the others. Blocks the calling thread.
public struct SubscriptionUpdate {
    /// One feed's part of the update.
    public struct FeedReport: Sendable, Equatable {
        /// The subscription, as recorded after the update (its address may have changed).
        public var subscription: Subscription
        /// How the fetch ended.
        public var result: Subscription.Result
        /// Episodes that became new in this fetch.
        public var new: Int
        /// Why it failed, one line.
        public var error: String?
        /// How it moved, one line each.
        public var moves: [String]
        /// What else the user should know (sloppy XML, the churn guard), one line each.
        public var warnings: [String]
    }

    /// What the update tells its caller, in order, on the caller's thread.
    public enum Event: Sendable {
        /// A feed's fetch was recorded.
        case feed(FeedReport)
        /// The downloads of new episodes (as `podcast download` reports them).
        case download(DownloadUpdate)
        /// `keep` deleted a file podcast had downloaded.
        case deleted(path: String, subscription: Subscription)
        /// Something the user should know about the update as a whole, one line.
        case warning(String)
    }

    /// What the update did.
    public struct Outcome: Sendable {
        /// Each feed, in the order they ended.
        public var feeds: [FeedReport]
        /// Each new episode asked for, as `podcast download` reports it (empty with `check`).
        public var results: [DownloadResult]
        /// The new episodes waiting, by subscription id (with `check`: what a download would fetch).
        public var pending: [(subscription: Subscription, items: [ListingItem])]
        /// Set when the downloads stopped early (Ctrl-C, a full disk), or the fetches were interrupted.
        public var stop: BatchOutcome.Stop?
    }

    let store: StateStore
    let paths: PodcastPaths
    /// How new episodes are downloaded; its HTTP settings also fetch the feeds.
    let settings: DownloadSettings

    /// An update recording in `store`, caching feeds in `paths`, downloading with `settings`.
    public init(store: StateStore, paths: PodcastPaths, settings: DownloadSettings) {
        self.store = store
        self.paths = paths
        self.settings = settings
    }

    /// Updates `subscriptions` (the gone ones are skipped with a warning); with `check`, only
    /// fetches and says what is new; `refresh` skips the conditional GET.
    public func run(
        _ subscriptions: [Subscription], check: Bool = false, refresh: Bool = false, stop: RunStop = RunStop(),
        report: (Event) -> Void
    ) throws -> Outcome {
        var outcome = Outcome(feeds: [], results: [], pending: [], stop: nil)
        for gone in subscriptions where gone.isGone {
            report(.warning("feed \(URLRedaction.redacted(gone.url)) (\(gone.title)) answered 410 Gone earlier and is skipped; "
                + "unsubscribe it, or subscribe to its new address"))
        }
        let due = subscriptions.filter { !$0.isGone }
        let answers = try store.lastAnswers()
        // Every subscription's addresses, due or not: no feed may move onto another's.
        let owners = try store.subscriptionOwners()
        let round = FeedRound(
            settings: TransferEngine.Settings(
                concurrency: FeedRound.concurrency, connectionsPerHost: settings.engine.connectionsPerHost,
                http: settings.engine.http, maxEpisodeSize: Int64(FeedParser.maxBytes)),
            cacheDirectory: paths.home + "/feeds")
        let refreshes = due.map { FeedRefresh(subscription: $0.id, url: $0.url, last: answers[$0.id] ?? .init(), owners: owners) }
        var recordFailure: Error?
        try round.run(refreshes, refresh: refresh, stop: stop) { ended in
            guard recordFailure == nil else { return }
            do {
                let feed = try record(ended)
                outcome.feeds.append(feed)
                report(.feed(feed))
            } catch {
                recordFailure = error
                stop.stop()
            }
        }
        if let recordFailure { throw recordFailure }
        if stop.isStopping {
            outcome.stop = .interrupted
            return outcome
        }

        let updated = try store.subscriptions().filter { subscription in due.contains { $0.id == subscription.id } }
        for subscription in updated {
            let items = try store.pendingEpisodes(of: subscription)
            if !items.isEmpty { outcome.pending.append((subscription, items)) }
        }
        if check { return outcome }

        let downloads = outcome.pending.filter { !$0.subscription.settings.noDownload }
        let items = downloads.flatMap { subscription, items in
            let library = subscription.settings.library(over: settings.library)
            return items.map { DownloadItem(
                number: nil, entry: $0, feed: subscription.url, podcastTitle: subscription.title,
                episodesDirectory: subscription.settings.episodesDirectory, library: library, subscription: subscription.id) }
        }
        if !items.isEmpty {
            let batch = DownloadBatch(store: store, settings: settings)
            stop.running(batch.interrupter)
            let finished = try batch.run(items) { report(.download($0)) }
            stop.running(nil)
            outcome.results = finished.results
            outcome.stop = finished.stop
            try markDone(finished.results, of: downloads.map(\.subscription))
        }
        if outcome.stop == nil {
            try applyKeep(to: updated, report: report)
        }
        return outcome
    }

    /// Records one feed's fetch and returns its report.
    private func record(_ ended: FeedRound.Outcome) throws -> FeedReport {
        let refresh = ended.refresh
        let moved = !refresh.moves.isEmpty
        var record = SubscriptionRefreshRecord(id: refresh.subscription, address: refresh.address, result: .unchanged)
        var warnings = refresh.result?.warnings ?? []
        switch ended.ending {
        case .unchanged:
            record.result = moved ? .moved : .unchanged
            record.cacheEntry = ended.cacheEntry
        case .updated:
            record.result = moved ? .moved : .updated
            record.cacheEntry = ended.cacheEntry
            record.digest = refresh.digest
            if let feed = refresh.result?.feed {
                record.title = feed.title
                record.htmlURL = feed.link
                record.episodes = Listing(feed: feed, url: refresh.address).items
            }
        case .gone:
            record.result = .gone
            record.error = "the feed answered 410 Gone; it is skipped from now on"
        case .failed(let reason):
            record.result = .failed
            record.error = reason
        }
        let triage = try store.recordRefresh(record)
        if let refused = triage.moveRefused {
            // Another subscription took the address after the fetches began: the store recorded
            // nothing of the document read there, and the feed failed.
            record.result = .failed
            record.error = "feed \(URLRedaction.redacted(refresh.requested)): \(refused)"
            warnings = []
        }
        if triage.churned > 0 {
            warnings.append("\(triage.churned) episodes of feed \(URLRedaction.redacted(refresh.address)) look new but are no newer "
                + "than those seen before: the feed changed its episode identities (a move to another host?); they are "
                + "marked seen and none is downloaded (podcast download can still fetch any of them)")
        }
        let subscription = try store.subscription(url: triage.moveRefused == nil ? refresh.address : refresh.requested)
            ?? Subscription(id: refresh.subscription, url: refresh.address, title: record.title ?? refresh.address)
        // A refused redirect is the fetch's error; a refused itunes:new-feed-url only a warning.
        for refusal in refresh.refused where refusal.readWhereItIs {
            warnings.append("feed \"\(subscription.title)\": \(refusal.description)")
        }
        // Refused by the store, the moves were not made.
        let moves: [String] = triage.moveRefused != nil ? [] : refresh.moves.map { move in
            let why = move.cause == .permanentRedirect ? "redirects permanently" : "says it moved (itunes:new-feed-url)"
            return "feed \(URLRedaction.redacted(move.from)) \(why) to \(URLRedaction.redacted(move.to)); the subscription now uses the new address"
        }
        return FeedReport(
            subscription: subscription, result: record.result, new: triage.new, error: record.error, moves: moves, warnings: warnings)
    }

    /// Marks the episodes that are now on disk done, so no later update fetches them again.
    private func markDone(_ results: [DownloadResult], of subscriptions: [Subscription]) throws {
        for subscription in subscriptions {
            let done = results.filter { $0.item.feed == subscription.url && $0.path != nil && $0.succeeded }.map(\.item.entry.identity)
            try store.markEpisodesDone(done, of: subscription.id)
        }
    }

    /// Deletes, for each subscription with `keep N`, the oldest of the files its updates downloaded
    /// beyond the newest N (never a file of the same podcast asked for by hand), with their companions (`LibraryDeletion`), and rewrites its
    /// playlist.
    private func applyKeep(to subscriptions: [Subscription], report: (Event) -> Void) throws {
        let deletion = LibraryDeletion(store: store)
        for subscription in subscriptions {
            guard let keep = subscription.settings.keep else { continue }
            let doomed = KeepRule.toDelete(try store.filesDownloaded(bySubscription: subscription), keep: keep)
            for file in doomed {
                let outcome = try deletion.deleteEpisode(file.key, for: .keep(subscription: subscription.id))
                for problem in outcome.problems { report(.warning("\(problem) (keep \(keep) of \(subscription.title))")) }
                if outcome.files.contains(file.path) { report(.deleted(path: file.path, subscription: subscription)) }
            }
            if !doomed.isEmpty {
                for problem in Playlist.refresh(feed: subscription.url, store: store) { report(.warning(problem)) }
            }
        }
    }
}
