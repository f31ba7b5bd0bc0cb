import FoundationEssentials
import Glibc
import PodcastHTTP
import PodcastPlatform
import PodcastText

/// Fetches feeds on a `TransferEngine`, each led by its `FeedRefresh`: many at once in the
/// engine's feed lane, so at most `connectionsPerHost` connections go to one host (shared with
/// any downloads on the same engine), and one slow server holds up nothing else. The engine may
/// be someone else's: `update` runs the round on its download batch's engine (`BatchFeeder`), so
/// a feed's new episodes start downloading while other feeds are still fetched; `FeedFetcher`
/// runs one feed on an engine of its own.
///
/// Every feed has a deadline (`FeedDeadlines.feed`, all its pages and moves together, counted from
/// its first request's start) and every request a first-byte timeout. A host that does not
/// answer twice in a round (`HostWatch`) is not asked again in it: its other feeds end at once,
/// and `takeNotices` says so in one line.
///
/// A first page that arrives whole replaces the feed's cached body; a 304 writes no file at
/// all. The conditional GET uses the validators of the answer whose episodes the subscription
/// last recorded; the new validators and digest are returned (`Outcome`), not stored:
/// `SubscriptionUpdate` writes them with the episodes they revealed, in one transaction, so a
/// crash between the two can never leave a feed that answers 304 to episodes nobody looked at.
///
/// Not thread-safe: `handle` is called on the thread that parses and records (the batch's).
final class FeedRound {
    /// How one feed's fetch ended.
    struct Outcome {
        /// The refresh, at its end: address, moves, pages read.
        var refresh: FeedRefresh
        /// How it ended.
        var ending: FeedRefresh.Ending
        /// The cache entry of the first page's answer, to store with the episodes.
        var cacheEntry: FeedCacheEntry?
    }

    /// Feed transfers' ids start here, past the ids of episodes and companions on a shared engine.
    static let firstID = 1 << 50

    /// The most of a feed's body fetched: a little past what the parser reads (more than the
    /// largest piece libcurl hands over), so the parser sees that the document goes on and says
    /// it was cut, rather than taking the cut for broken XML.
    static let bodyLimit = Int64(FeedParser.maxBytes) + 1024 * 1024

    /// The most of a web page fetched to be read for its feeds: past what is read of it
    /// (`FeedPage.maxBytes`), so a longer page is read that far and said to be cut.
    static let pageLimit = Int64(FeedPage.maxBytes) + 1024 * 1024

    /// True when the transfer `id` is a feed's.
    static func owns(_ id: Int) -> Bool { id >= firstID }

    /// The HTTP settings of feed requests (`HTTPSettings.forFeeds`).
    let http: HTTPSettings
    let deadlines: FeedDeadlines
    /// Where bodies of first pages are kept (the feed cache shared by every command).
    let cacheDirectory: String
    /// Told how much of a page has arrived, once a page has taken a second, then at most four
    /// times a second (`ProgressPacing`).
    var progress: ((FeedFetchProgress) -> Void)?

    /// A fetch in flight: which refresh it serves and where its body goes.
    private struct Fetch {
        var refresh: Int
        var url: String
        var host: String
        var path: String
        var firstPage: Bool
        /// True for a web page read for the feed it names (`FeedRefresh.Action.readPage`).
        var readsPage = false
        var pacing = ProgressPacing(start: .now)
        var reported = 0
    }

    /// One feed of the round: its refresh machine, and what the round keeps for it between fetches.
    private struct FeedState {
        var machine: FeedRefresh
        /// Its first pages, by the URL asked: the one its document came from is recorded.
        var cacheEntries: [String: FeedCacheEntry] = [:]
        /// The body it fetched last, to parse, and the URL it came from (after redirects: the
        /// base of its relative links).
        var lastBody: (path: String, base: String)?
        /// When its time is up, from its first request's start.
        var deadline: ContinuousClock.Instant?
        /// Its whole first page not yet in the cache: it replaces the cached body only once it is
        /// known to be a feed, so a broken answer never becomes what a 304 points to.
        var uncached: (path: String, entry: FeedCacheEntry)?

        /// Takes its whole first page not yet in the cache, if any.
        mutating func takeUncached() -> (path: String, entry: FeedCacheEntry)? {
            defer { uncached = nil }
            return uncached
        }
    }

    /// The round's feeds, by index (a fetch's `refresh`).
    private var feeds: [FeedState]
    private var fetches: [Int: Fetch] = [:]
    private var nextID = FeedRound.firstID
    private var open: Int
    private var hosts = HostWatch()
    private var ended: [Outcome] = []
    private var notices: [String] = []
    private var engine: TransferEngine?

    /// A round of `refreshes` with feed requests' `http` settings and `deadlines`, caching in `cacheDirectory`.
    init(_ refreshes: [FeedRefresh], http: HTTPSettings, deadlines: FeedDeadlines, cacheDirectory: String) {
        feeds = refreshes.map { FeedState(machine: $0) }
        open = refreshes.count
        self.http = http
        self.deadlines = deadlines
        self.cacheDirectory = cacheDirectory
    }

    /// True once every feed has ended.
    var isFinished: Bool { open == 0 }

    /// Begins every feed on `engine`; `refresh` skips the conditional GET. Ends at once, failed,
    /// when the feed cache cannot be made.
    func start(on engine: TransferEngine, refresh: Bool) {
        self.engine = engine
        do {
            try FileIO.makeDirectory(cacheDirectory)
        } catch {
            for index in feeds.indices { end(index, .failed(FeedError(.cache(error), source: feeds[index].machine.requested))) }
            return
        }
        for index in feeds.indices {
            carryOut(feeds[index].machine.begin(refresh: refresh), for: index)
        }
    }

    /// The feeds that ended since the last call, in the order they ended.
    func takeEnded() -> [Outcome] {
        defer { ended.removeAll() }
        return ended
    }

    /// Lines for the user about the round as a whole (a host skipped), since the last call.
    func takeNotices() -> [String] {
        defer { notices.removeAll() }
        return notices
    }

    /// Stops the round: the fetches still running are cancelled and their files removed;
    /// nothing of an unended feed is returned.
    func abandon() {
        for (id, fetch) in fetches {
            engine?.cancel(id)
            // Ownership: this round's own temporary feed file.
            unlink(fetch.path)
        }
        fetches.removeAll()
        for index in feeds.indices {
            guard let body = feeds[index].uncached else { continue }
            // Ownership: this round's own temporary feed file.
            unlink(body.path)
            feeds[index].uncached = nil
        }
        open = 0
    }

    /// Runs the round on an engine of its own with `settings` until every feed has ended, or
    /// `stop` stops it. `afterEvent` is called after each event, to take what ended at once
    /// (never many parsed feeds held together); `afterTurn` after each batch of events.
    func runAlone(
        engine settings: TransferEngine.Settings, refresh: Bool, stop: RunStop = RunStop(), afterEvent: () -> Void,
        afterTurn: () -> Void = {}
    ) throws(SystemError) {
        let queue = EventQueue<TransferEvent>()
        let engine = try TransferEngine(settings: settings) { queue.post(contentsOf: $0) }
        stop.running { engine.shutdown() }
        defer {
            stop.running(nil)
            engine.shutdown()
        }
        start(on: engine, refresh: refresh)
        afterEvent()
        afterTurn()
        while !isFinished {
            // Interrupted: what has not ended is dropped (nothing of it is recorded).
            guard !stop.isStopping else {
                abandon()
                break
            }
            for event in queue.drain(until: .now + .milliseconds(250)) {
                handle(event)
                afterEvent()
            }
            afterTurn()
        }
    }

    /// Takes one of the engine's events about a feed transfer (others are ignored).
    func handle(_ event: TransferEvent) {
        switch event {
        case .started(let id):
            guard let fetch = fetches[id], feeds[fetch.refresh].deadline == nil else { return }
            feeds[fetch.refresh].deadline = .now + deadlines.feed
        case .progress(let snapshot):
            guard let progress else { return }
            for item in snapshot where Self.owns(item.id) {
                guard var fetch = fetches[item.id], Int(item.bytes) > fetch.reported, fetch.pacing.isDue(at: .now) else { continue }
                fetch.reported = Int(item.bytes)
                fetches[item.id] = fetch
                progress(FeedFetchProgress(url: fetch.url, receivedBytes: fetch.reported))
            }
        case .completed(let done):
            guard let fetch = fetches.removeValue(forKey: done.id) else { return }
            hosts.answered(fetch.host)
            completed(done, fetch: fetch)
        case .failed(let failure):
            guard let fetch = fetches.removeValue(forKey: failure.id) else { return }
            if fetch.readsPage, case .tooLarge = failure.kind {
                // The page's start, as far as it is read.
                return readPage(fetch, from: failure.url.isEmpty ? fetch.url : failure.url, contentType: nil)
            }
            if case .tooLarge = failure.kind {
                // The feed's start, up to what podcast reads of a feed: listed, and said to be cut.
                return cutShort(fetch, at: failure)
            }
            // Ownership: this round's own temporary feed file.
            unlink(fetch.path)
            let (host, error) = Self.failure(failure, fetchedFrom: fetch.host, source: fetch.url, deadlines: deadlines)
            if !failure.hostDidNotAnswer {
                hosts.answered(host)
            } else if hosts.failed(host) {
                skip(host)
            }
            let action = fetch.readsPage
                ? feeds[fetch.refresh].machine.pageRead(.failure(error)) : feeds[fetch.refresh].machine.failed(error)
            carryOut(action, for: fetch.refresh)
        case .responded, .filled:
            break
        }
    }

    /// What the failed transfer of feed `source`, asked of `host`, says: the host to blame (where a
    /// redirect led, if it did, not the feed's own) and the feed's error, a time-out named by the
    /// deadline that ran out.
    static func failure(
        _ failure: FailedTransfer, fetchedFrom host: String, source: String, deadlines: FeedDeadlines
    ) -> (host: String, error: FeedError) {
        let blamed = failure.url.isEmpty ? host : TransferRequest.host(of: failure.url)
        var error = FeedError(failure, source: source)
        // Out of time: the feed's whole deadline, or, with nothing received, a server that never answered.
        if case .overTime = failure.kind {
            error.kind = failure.received == 0 ? .noAnswer(deadlines.firstByte) : .overTime(deadlines.feed)
        }
        return (blamed, error)
    }

    // MARK: Steps

    /// A feed larger than podcast reads: its start is parsed as the document (the parser says it
    /// was cut), never cached (it is not the whole answer).
    private func cutShort(_ fetch: Fetch, at failure: FailedTransfer) {
        let action = feeds[fetch.refresh].machine.answered(FeedRefresh.Answer(status: 200))
        feeds[fetch.refresh].lastBody = (fetch.path, failure.url.isEmpty ? fetch.url : failure.url)
        carryOut(action, for: fetch.refresh)
    }

    /// Reads the web page `fetch` brought (from `pageURL`, after redirects) for the feed it names,
    /// and hands that to its refresh.
    private func readPage(_ fetch: Fetch, from pageURL: String, contentType: String?) {
        let found: Result<FeedResolution, FeedError>
        do {
            found = .success(try FeedPage.feeds(inFile: fetch.path, link: fetch.url, pageURL: pageURL, contentType: contentType))
        } catch {
            found = .failure(error)
        }
        // Ownership: this round's own temporary feed file.
        unlink(fetch.path)
        carryOut(feeds[fetch.refresh].machine.pageRead(found), for: fetch.refresh)
    }

    private func completed(_ done: CompletedTransfer, fetch: Fetch) {
        if fetch.readsPage {
            return readPage(fetch, from: done.effectiveURL.isEmpty ? fetch.url : done.effectiveURL, contentType: done.contentType)
        }
        let index = fetch.refresh
        var answer = FeedRefresh.Answer(status: done.status, permanentTarget: done.permanentTarget)
        let wholeFirstPage = fetch.firstPage && done.status != 304
        if wholeFirstPage {
            answer.digest = (try? SHA2.digest(ofFile: fetch.path, .sha256)).map(SHA2.hex)
        }
        let action = feeds[index].machine.answered(answer)
        let body = done.status == 304 ? cacheDirectory + "/" + FeedFile.cacheFileName(for: fetch.url) : fetch.path
        let base = done.effectiveURL.isEmpty ? fetch.url : done.effectiveURL
        if case .end(.failed) = action {
            // Ownership: this round's own temporary feed file. Refused (it redirected onto
            // another subscription's feed): not even the cache keeps it under this feed's address.
            unlink(fetch.path)
        } else if wholeFirstPage {
            // Cached (with its validators stored with the episodes) once it is known to be a feed.
            feeds[index].uncached = (fetch.path, FeedCacheEntry(
                url: fetch.url, etag: done.etag, lastModified: done.lastModified, bodyFile: FeedFile.cacheFileName(for: fetch.url),
                fetchedAt: Date()))
        }
        feeds[index].lastBody = (body, done.status == 304 ? fetch.url : base)
        carryOut(action, for: index, contentType: done.contentType)
    }

    private func carryOut(_ action: FeedRefresh.Action, for index: Int, contentType: String? = nil) {
        var action = action
        while true {
            switch action {
            case .fetch(let url, let conditional):
                guard let next = request(url, conditional: conditional, for: index) else {
                    action = feeds[index].machine.failed(refusal(of: url, for: index))
                    continue
                }
                engine?.start(next)
                return
            case .parse(let url):
                let (file, base) = feeds[index].lastBody ?? ("", url)
                let outcome: Result<FeedParser.Result, FeedError>
                do {
                    outcome = .success(try FeedFile.parse(file: file, url: base, source: url, httpCharset: FeedFile.charset(of: contentType)))
                } catch {
                    outcome = .failure(error)
                }
                if case .success = outcome, feeds[index].uncached?.path == file {
                    cache(index)
                } else if file.hasSuffix(".part") {
                    // Ownership: this round's own temporary feed file (a later page, or no feed at all).
                    unlink(file)
                    if feeds[index].uncached?.path == file { feeds[index].uncached = nil }
                }
                action = feeds[index].machine.parsed(outcome)
            case .readPage(let url):
                guard var next = request(url, conditional: false, for: index) else {
                    action = feeds[index].machine.pageRead(.failure(refusal(of: url, for: index)))
                    continue
                }
                // Read for its links, never cached: a page is no feed for a 304 to point to.
                next.readsPage = true
                next.maxSize = Self.pageLimit
                fetches[next.id]?.readsPage = true
                engine?.start(next)
                return
            case .end(let ending):
                if let body = feeds[index].takeUncached() {
                    // The same bytes as last time (not parsed again): cached anew with their validators.
                    if case .unchanged = ending {
                        feeds[index].uncached = body
                        cache(index)
                    } else {
                        // Ownership: this round's own temporary feed file.
                        unlink(body.path)
                    }
                }
                end(index, ending)
                return
            }
        }
    }

    /// The request for `url` on behalf of refresh `index`, or nil when it may not be asked:
    /// its host was skipped, or the feed's time is up.
    private func request(_ url: String, conditional: Bool, for index: Int) -> TransferRequest? {
        let host = TransferRequest.host(of: url)
        guard !hosts.isSkipped(host) else { return nil }
        var timeLimit = deadlines.feed
        if let deadline = feeds[index].deadline {
            timeLimit = deadline - .now
            guard timeLimit >= .milliseconds(1) else { return nil }
        }
        nextID += 1
        let path = cacheDirectory + "/" + FeedFile.partialName(number: nextID - Self.firstID)
        fetches[nextID] = Fetch(refresh: index, url: url, host: host, path: path, firstPage: feeds[index].machine.result == nil)
        var request = TransferRequest(
            id: nextID, url: url, partialPath: path, expectsMedia: false, writesBack: false, maxSize: Self.bodyLimit)
        request.lane = .feed
        request.http = http
        request.timeLimit = timeLimit
        request.firstByteTimeout = deadlines.firstByte
        if conditional {
            request.headers = feeds[index].machine.last.conditions
            request.acceptsNotModified = true
        }
        return request
    }

    /// Moves refresh `index`'s whole first page into the cache, where a 304 will point next time.
    private func cache(_ index: Int) {
        guard let body = feeds[index].takeUncached() else { return }
        // Ownership: the feed cache in podcast's home, written by podcast alone.
        if FileIO.calls.rename(body.path, cacheDirectory + "/" + body.entry.bodyFile) == 0 {
            feeds[index].cacheEntries[body.entry.url] = body.entry
        } else {
            unlink(body.path)
        }
    }

    /// Why refresh `index` may not ask for `url` (see `request`).
    private func refusal(of url: String, for index: Int) -> FeedError {
        let host = TransferRequest.host(of: url)
        return hosts.isSkipped(host)
            ? FeedError(.hostSkipped(host: host), source: url) : FeedError(.overTime(deadlines.feed), source: url)
    }

    private func end(_ index: Int, _ ending: FeedRefresh.Ending) {
        open -= 1
        let refresh = feeds[index].machine
        ended.append(Outcome(refresh: refresh, ending: ending, cacheEntry: feeds[index].cacheEntries[refresh.documentURL]))
        // Handed on: hundreds of feeds' episodes must not all be held until the round ends.
        feeds[index].machine.releasePages()
        feeds[index].lastBody = nil
    }

    /// Ends every fetch on `host` now: it did not answer twice, and the rest of the round would
    /// only wait for it again. One notice says how many feeds it held back.
    private func skip(_ host: String) {
        let waiting = fetches.filter { $0.value.host == host }
        for (id, fetch) in waiting {
            fetches[id] = nil
            engine?.cancel(id)
            // Ownership: this round's own temporary feed file.
            unlink(fetch.path)
            carryOut(feeds[fetch.refresh].machine.failed(FeedError(.hostSkipped(host: host), source: fetch.url)), for: fetch.refresh)
        }
        // A host only redirects led to holds up no feed of its own: nothing to tell.
        guard !waiting.isEmpty else { return }
        notices.append("\(host) did not answer twice: skipped for the rest of this update (\(Plural.count(waiting.count, "feed")) waited on it)")
    }

}

/// Which hosts of a round have stopped answering: a host that fails to answer twice is skipped
/// for the rest of the round, so 300 feeds on a dead host cost two timeouts, not 150.
struct HostWatch {
    /// Failures to answer that skip a host.
    static let limit = 2

    private var failures: [String: Int] = [:]
    private var skipped: Set<String> = []

    /// True when `host` is skipped.
    func isSkipped(_ host: String) -> Bool { skipped.contains(host) }

    /// Counts a failure of `host` to answer; true when that makes it skipped (only once).
    mutating func failed(_ host: String) -> Bool {
        guard !skipped.contains(host) else { return false }
        failures[host, default: 0] += 1
        guard failures[host, default: 0] >= Self.limit else { return false }
        skipped.insert(host)
        return true
    }

    /// `host` answered: it is up, and an earlier failure was bad luck.
    mutating func answered(_ host: String) {
        failures[host] = nil
    }
}

/// How long feeds may take: `feed-timeout` for a whole feed, and the first-byte timeout of
/// each request.
public struct FeedDeadlines: Sendable, Equatable {
    /// The most one feed may take, every page and move of it (`feed-timeout`).
    public var feed: Duration
    /// The most a server may take to begin answering one request.
    public var firstByte: Duration

    /// The default `feed-timeout`: a feed of megabytes over a slow line fits; a feed that
    /// drips for days does not hold `update` (and cron's next run) for days.
    public static let defaultFeed = Duration.seconds(120)
    /// A server that has said nothing for this long after taking the request is not
    /// answering: feeds are made in well under a second, even the slowest in a few.
    static let defaultFirstByte = Duration.seconds(30)

    /// Deadlines of `feed` per feed; the first-byte timeout is never longer.
    public init(feed: Duration = defaultFeed) {
        self.feed = feed
        firstByte = min(feed, Self.defaultFirstByte)
    }
}
