import FoundationEssentials
import Glibc
import PodcastPlatform

/// `podcast update`: every due subscription's feed fetched at once (`FeedRound`), what each fetch
/// showed recorded with its triage (`EpisodeTriage`), each feed's new episodes downloaded through
/// the same batch as `podcast download` as soon as its fetch is recorded (`UpdateFeeder`), then
/// `keep` applied once the new files are in place.
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
        /// Why it failed, in a word or two (`FeedError.cause`: timed out, HTML page, HTTP 404), for the summary.
        public var cause: String?
        /// How it moved, one line each.
        public var moves: [String]
        /// What else the user should know (sloppy XML, the churn guard), one line each.
        public var warnings: [String]

        /// A report; `cause` is set apart.
        public init(
            subscription: Subscription, result: Subscription.Result, new: Int, error: String?, moves: [String], warnings: [String]
        ) {
            self.subscription = subscription
            self.result = result
            self.new = new
            self.error = error
            self.moves = moves
            self.warnings = warnings
        }
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
        /// Feeds due that were never fetched to their end (the update was stopped first).
        public var unfetched = 0
    }

    let store: StateStore
    let paths: PodcastPaths
    /// How new episodes are downloaded; its HTTP settings, scoped to feeds
    /// (`HTTPSettings.forFeeds`), also fetch the feeds.
    let settings: DownloadSettings
    /// How long each feed may take.
    let deadlines: FeedDeadlines

    /// An update recording in `store`, caching feeds in `paths`, downloading with `settings`,
    /// giving each feed `deadlines`.
    public init(store: StateStore, paths: PodcastPaths, settings: DownloadSettings, deadlines: FeedDeadlines = FeedDeadlines()) {
        self.store = store
        self.paths = paths
        self.settings = settings
        self.deadlines = deadlines
    }

    /// Updates `subscriptions` (the gone ones are skipped with a warning); with `check`, only
    /// fetches and says what is new; `refresh` skips the conditional GET.
    ///
    /// A pipeline: the feeds are fetched on the download batch's engine, and each feed's new
    /// episodes join the batch as soon as its fetch is recorded, so a slow or dead feed holds
    /// back no other feed's episodes. `keep` is applied once every download has ended.
    public func run(
        _ subscriptions: [Subscription], check: Bool = false, refresh: Bool = false, stop: RunStop = RunStop(),
        report: (Event) -> Void
    ) throws -> Outcome {
        var outcome = Outcome(feeds: [], results: [], pending: [], stop: nil)
        for gone in subscriptions where gone.isGone {
            report(.warning("feed \(gone.url) (\(gone.title)) answered 410 Gone earlier and is skipped; "
                + "unsubscribe it, or subscribe to its new address"))
        }
        let due = subscriptions.filter { !$0.isGone }
        let cacheDirectory = paths.home + "/feeds"
        do {
            try FileIO.makeDirectory(cacheDirectory)
            _ = try FeedFile.removeLeftovers(in: cacheDirectory)
        } catch {
            report(.warning("could not clear the feed cache of an earlier, interrupted update (\(error)); it is tried again next time"))
        }
        let answers = try store.subscriptions.lastAnswers()
        // Every subscription's addresses, due or not: no feed may move onto another's.
        let owners = try store.subscriptionAddresses.owners()
        let round = FeedRound(
            // One never read yet (imported as its show's page) may answer with the page naming its feed.
            due.map { subscription in
                FeedRefresh(
                    subscription: subscription.id, url: subscription.url, last: answers[subscription.id] ?? .init(), owners: owners,
                    followsPage: !subscription.hasBaseline)
            },
            http: settings.engine.http.forFeeds, deadlines: deadlines,
            cacheDirectory: cacheDirectory)

        return try withoutActuallyEscaping(report) { report in
            let feeder = UpdateFeeder(update: self, round: round, downloads: !check, refresh: refresh, report: report)
            if check {
                var engine = settings.engine
                engine.http = engine.http.forFeeds
                try round.runAlone(
                    engine: engine, refresh: refresh, stop: stop, afterEvent: feeder.collect, afterTurn: { _ = feeder.takeEpisodes() })
                if stop.isStopping { outcome.stop = .interrupted }
            } else {
                let batch = DownloadBatch(store: store, settings: settings)
                stop.running(batch.interrupter)
                let finished = try batch.run([], refill: nil, feeder: feeder) { report(.download($0)) }
                stop.running(nil)
                outcome.results = finished.results
                outcome.stop = finished.stop
            }
            if let failure = feeder.recordFailure { throw failure }
            outcome.feeds = feeder.reports
            outcome.unfetched = due.count - feeder.reports.count
            // In the order of the subscriptions, however the feeds ended.
            let order = Dictionary(due.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
            outcome.pending = feeder.pending.sorted { order[$0.subscription.id, default: 0] < order[$1.subscription.id, default: 0] }
            if check { return outcome }
            // What is on disk is done, even when the update was stopped.
            let downloaded = outcome.pending.filter { !$0.subscription.settings.noDownload }.map(\.subscription)
            try markDone(outcome.results, of: downloaded)
            guard outcome.stop == nil else { return outcome }
            let updated = try store.subscriptions.all().filter { subscription in due.contains { $0.id == subscription.id } }
            try applyKeep(to: updated, report: report)
            return outcome
        }
    }

    /// Records fetches that ended (`FeedRound.Outcome`), all in one transaction, and returns their reports.
    fileprivate func record(_ ended: [FeedRound.Outcome]) throws -> [FeedReport] {
        let records = ended.map(Self.record(of:))
        let triages = try store.subscriptions.recordRefreshes(records)
        return try zip(ended, zip(records, triages)).map { ended, recorded in
            try report(ended, record: recorded.0, triage: recorded.1)
        }
    }

    /// What the store records of a fetch's end.
    static func record(of ended: FeedRound.Outcome) -> SubscriptionRefreshRecord {
        let refresh = ended.refresh
        let moved = !refresh.moves.isEmpty
        var record = SubscriptionRefreshRecord(id: refresh.subscription, address: refresh.address, result: .unchanged)
        switch ended.ending {
        case .unchanged:
            record.result = moved ? .moved : .unchanged
            record.cacheEntry = ended.cacheEntry
        case .updated:
            record.result = moved ? .moved : .updated
            // A feed read in part keeps the validators of its last whole read: the next update
            // reads it again, later pages and all.
            record.cacheEntry = refresh.isWhole ? ended.cacheEntry : nil
            record.digest = refresh.isWhole ? refresh.digest : nil
            if let feed = refresh.result?.feed {
                record.title = feed.title
                record.htmlURL = feed.link
                record.episodes = Listing(feed: feed, url: refresh.address).items
            }
        case .gone:
            record.result = .gone
            record.error = "the feed answered 410 Gone; it is skipped from now on"
        case .failed(let error):
            record.result = .failed
            record.error = error.description
        }
        return record
    }

    /// The report of one recorded fetch.
    private func report(_ ended: FeedRound.Outcome, record: SubscriptionRefreshRecord, triage: RefreshTriage) throws -> FeedReport {
        let refresh = ended.refresh
        var record = record
        var warnings = refresh.result?.warnings ?? []
        var cause: String?
        if case .failed(let error) = ended.ending { cause = error.cause }
        if let refused = triage.moveRefused {
            // Another subscription took the address after the fetches began: the store recorded
            // nothing of the document read there, and the feed failed.
            record.result = .failed
            record.error = "feed \(refresh.requested): \(refused)"
            cause = "moved onto another subscription"
            warnings = []
        }
        if triage.churned > 0 {
            warnings.append("\(triage.churned) episodes of feed \(refresh.address) look new but are no newer "
                + "than those seen before: the feed changed its episode identities (a move to another host?); they are "
                + "marked seen and none is downloaded (podcast download can still fetch any of them)")
        }
        let subscription = try store.subscriptions.find(url: triage.moveRefused == nil ? refresh.address : refresh.requested)
            ?? Subscription(id: refresh.subscription, url: refresh.address, title: record.title ?? refresh.address)
        // A refused redirect is the fetch's error; a refused itunes:new-feed-url only a warning.
        for refusal in refresh.refused where refusal.readWhereItIs {
            warnings.append("feed \"\(subscription.title)\": \(refusal.description)")
        }
        // Refused by the store, the moves were not made.
        let moves: [String] = triage.moveRefused != nil ? [] : refresh.moves.map { move in
            if case .page(let resolution) = move.cause { return resolution.note + "; the subscription now uses the feed's address" }
            return "feed \(move.from) \(move.cause.verb) to \(move.to); the subscription now uses the new address"
        }
        var report = FeedReport(
            subscription: subscription, result: record.result, new: triage.new, error: record.error, moves: moves, warnings: warnings)
        report.cause = cause
        return report
    }

    /// The episodes of `subscription` waiting to be downloaded, as the batch takes them.
    fileprivate func downloads(of subscription: Subscription, _ items: [ListingItem]) -> [DownloadItem] {
        let library = subscription.settings.library(over: settings.library)
        return items.map { DownloadItem(
            number: nil, entry: $0, feed: subscription.url, podcastTitle: subscription.title,
            episodesDirectory: subscription.settings.episodesDirectory, library: library, subscription: subscription.id) }
    }

    /// Marks the episodes that are now on disk done, so no later update fetches them again.
    private func markDone(_ results: [DownloadResult], of subscriptions: [Subscription]) throws {
        for subscription in subscriptions {
            let done = results.filter { $0.item.feed == subscription.url && $0.path != nil && $0.succeeded }.map(\.item.entry.identity)
            try store.subscriptions.markEpisodesDone(done, of: subscription.id)
        }
    }

    /// Deletes, for each subscription with `keep N`, the oldest of the files its updates downloaded
    /// beyond the newest N (never a file of the same podcast asked for by hand), with their companions (`LibraryDeletion`), and rewrites its
    /// playlist.
    private func applyKeep(to subscriptions: [Subscription], report: (Event) -> Void) throws {
        let deletion = LibraryDeletion(store: store)
        for subscription in subscriptions {
            guard let keep = subscription.settings.keep else { continue }
            let doomed = KeepRule.toDelete(try store.subscriptions.filesDownloaded(by: subscription), keep: keep)
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

/// `update`'s feeds as a `BatchFeeder`: the round of fetches runs on the batch's engine; each
/// feed read is recorded as soon as it ends, and its new episodes go to the batch at its next
/// turn. Feeds that ended unchanged are recorded together, once per turn: a round of 300
/// unchanged feeds commits a few dozen times, not 300.
private final class UpdateFeeder: BatchFeeder {
    let update: SubscriptionUpdate
    let round: FeedRound
    /// False for `--check`: nothing is handed to a batch.
    let downloads: Bool
    let report: (SubscriptionUpdate.Event) -> Void
    /// True to skip the conditional GET (`--refresh`).
    let refresh: Bool
    /// Each feed recorded, in the order recorded.
    private(set) var reports: [SubscriptionUpdate.FeedReport] = []
    /// The episodes waiting, by subscription, in the order recorded.
    private(set) var pending: [(subscription: Subscription, items: [ListingItem])] = []
    /// Set when the store could not record a fetch: the update stops, and `run` throws it.
    private(set) var recordFailure: Error?
    /// Episodes of recorded feeds not yet handed to the batch.
    private var found: [DownloadItem] = []
    /// Unchanged feeds not recorded yet, and since when the first of them waits.
    private var unchanged: [FeedRound.Outcome] = []

    init(
        update: SubscriptionUpdate, round: FeedRound, downloads: Bool, refresh: Bool, report: @escaping (SubscriptionUpdate.Event) -> Void
    ) {
        self.update = update
        self.round = round
        self.downloads = downloads
        self.refresh = refresh
        self.report = report
    }

    var isFinished: Bool { round.isFinished && unchanged.isEmpty }

    func start(on engine: TransferEngine) {
        round.start(on: engine, refresh: refresh)
    }

    func handle(_ event: TransferEvent) {
        round.handle(event)
        collect()
    }

    func stop() {
        // Fetched whole, they are recorded; what is still being fetched is dropped.
        record(unchanged)
        unchanged.removeAll()
        round.abandon()
    }

    func takeEpisodes() -> [DownloadItem] {
        collect()
        record(unchanged)
        unchanged.removeAll()
        defer { found.removeAll() }
        return found
    }

    /// Takes the feeds that ended: each read one is recorded at once, so the round holds one
    /// parsed feed at a time (48 feeds parsed and held for one commit took 20 MiB more); the
    /// unchanged ones, which carry nothing, wait for `takeEpisodes` to be recorded together.
    func collect() {
        for notice in round.takeNotices() { report(.warning(notice)) }
        var read: [FeedRound.Outcome] = []
        for ended in round.takeEnded() {
            if case .unchanged = ended.ending {
                unchanged.append(ended)
            } else {
                read.append(ended)
            }
        }
        record(read)
    }

    /// Records `ended` in one transaction, reports each feed, and keeps the episodes they have
    /// waiting for the batch (`found`).
    private func record(_ ended: [FeedRound.Outcome]) {
        guard !ended.isEmpty, recordFailure == nil else { return }
        do {
            for feed in try update.record(ended) {
                reports.append(feed)
                report(.feed(feed))
                let items = try update.store.subscriptions.pendingEpisodes(of: feed.subscription)
                guard !items.isEmpty else { continue }
                pending.append((feed.subscription, items))
                if downloads && !feed.subscription.settings.noDownload { found += update.downloads(of: feed.subscription, items) }
            }
        } catch {
            recordFailure = error
            stop()
        }
    }
}
