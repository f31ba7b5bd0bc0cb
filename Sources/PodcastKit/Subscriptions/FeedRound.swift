import FoundationEssentials
import Glibc

/// Fetches subscribed feeds many at once on one `TransferEngine` (so at most two connections go to
/// one host, and one slow server holds up nothing else), each led by its `FeedRefresh`. A first
/// page that arrives whole replaces the feed's cached body; what changed is parsed on the calling
/// thread while the engine goes on fetching the others.
///
/// The conditional GET uses the validators of the answer whose episodes the subscription last
/// recorded; the new validators and digest are returned, not stored: `SubscriptionUpdate` writes
/// them with the episodes they revealed, in one transaction, so a crash between the two can never
/// leave a feed that answers 304 to episodes nobody looked at.
struct FeedRound {
    /// How one feed's fetch ended.
    struct Outcome {
        /// The refresh, at its end: address, moves, pages read.
        var refresh: FeedRefresh
        /// How it ended.
        var ending: FeedRefresh.Ending
        /// The cache entry of the first page's answer, to store with the episodes.
        var cacheEntry: FeedCacheEntry?
    }

    /// The engine's settings: concurrency, identity, timeouts.
    let settings: TransferEngine.Settings
    /// Where bodies of first pages are kept (the feed cache shared with `podcast episodes`).
    let cacheDirectory: String

    /// Feeds fetched at once: enough to keep every host's two connections busy.
    static let concurrency = 16

    /// A fetch in flight: which refresh it serves and where its body goes.
    private struct Fetch {
        var refresh: Int
        var url: String
        var path: String
        var firstPage: Bool
    }

    /// Fetches every feed of `refreshes` to its end; `refresh` skips the conditional GET.
    /// `ended` is given each feed as it ends (on this thread), to record: the round keeps nothing of it. `stop` ends the round early:
    /// the fetches still running end as cancelled failures.
    func run(_ refreshes: [FeedRefresh], refresh: Bool, stop: RunStop, ended: (Outcome) -> Void) throws {
        try FileIO.makeDirectory(cacheDirectory)
        let queue = EventQueue<TransferEvent>()
        let engine = try TransferEngine(settings: settings) { queue.post(contentsOf: $0) }
        stop.running { engine.shutdown() }
        defer {
            stop.running(nil)
            engine.shutdown()
        }

        var machines = refreshes
        // Each refresh's first pages, by the URL asked: the one its document came from is recorded.
        var cacheEntries: [[String: FeedCacheEntry]] = Array(repeating: [:], count: refreshes.count)
        var fetches: [Int: Fetch] = [:]
        var nextID = 0
        var open = refreshes.count
        // The body each refresh fetched last, to parse.
        var lastBody: [Int: String] = [:]

        func carryOut(_ action: FeedRefresh.Action, for index: Int, contentType: String? = nil) {
            var action = action
            while true {
                switch action {
                case .fetch(let url, let conditional):
                    nextID += 1
                    let path = cacheDirectory + "/.update-\(getpid())-\(nextID).part"
                    fetches[nextID] = Fetch(refresh: index, url: url, path: path, firstPage: machines[index].result == nil)
                    var request = TransferRequest(
                        id: nextID, url: url, partialPath: path, expectsMedia: false, writesBack: false,
                        maxSize: Int64(FeedParser.maxBytes))
                    if conditional {
                        request.headers = machines[index].last.conditions
                        request.acceptsNotModified = true
                    }
                    engine.start(request)
                    return
                case .parse(let url):
                    let file = lastBody[index] ?? ""
                    let outcome: Result<FeedParser.Result, FeedError>
                    do {
                        outcome = .success(try FeedFetcher.parse(file: file, url: url, source: url, httpCharset: FeedFetcher.charset(of: contentType)))
                    } catch {
                        outcome = .failure(error)
                    }
                    // Ownership: files in podcast's own feed cache.
                    if !file.hasSuffix(".xml") { unlink(file) }
                    action = machines[index].parsed(outcome)
                case .end(let ending):
                    open -= 1
                    ended(Outcome(refresh: machines[index], ending: ending, cacheEntry: cacheEntries[index][machines[index].documentURL]))
                    // Recorded: hundreds of feeds' episodes must not all be held until the round ends.
                    machines[index].releasePages()
                    return
                }
            }
        }

        for index in machines.indices {
            carryOut(machines[index].begin(refresh: refresh), for: index)
        }
        while open > 0 {
            // Interrupted: what has not ended is dropped (nothing of it is recorded).
            guard !stop.isStopping else { break }
            for event in queue.drain(until: .now + .milliseconds(250)) {
                switch event {
                case .completed(let done):
                    guard let fetch = fetches.removeValue(forKey: done.id) else { continue }
                    var answer = FeedRefresh.Answer(status: done.status, permanentTarget: done.permanentTarget)
                    let wholeFirstPage = fetch.firstPage && done.status != 304
                    if wholeFirstPage {
                        answer.digest = (try? SHA2.digest(ofFile: fetch.path, .sha256)).map(SHA2.hex)
                    }
                    let action = machines[fetch.refresh].answered(answer)
                    var body = fetch.path
                    if case .end(.failed) = action {
                        // Ownership: this round's own temporary feed file. Refused (it redirected onto
                        // another subscription's feed): not even the cache keeps it under this feed's address.
                        unlink(fetch.path)
                    } else if wholeFirstPage {
                        // The cached body is replaced now; its validators are stored with the episodes.
                        let name = FeedFetcher.cacheFileName(for: fetch.url)
                        // Ownership: the feed cache in podcast's home, written by podcast alone.
                        if rename(fetch.path, cacheDirectory + "/" + name) == 0 {
                            body = cacheDirectory + "/" + name
                            cacheEntries[fetch.refresh][fetch.url] = FeedCacheEntry(
                                url: fetch.url, etag: done.etag, lastModified: done.lastModified, bodyFile: name, fetchedAt: Date())
                        }
                    } else if done.status == 304 {
                        // Ownership: this round's own temporary feed file.
                        unlink(fetch.path)
                    }
                    lastBody[fetch.refresh] = body
                    carryOut(action, for: fetch.refresh, contentType: done.contentType)
                case .failed(let failure):
                    guard let fetch = fetches.removeValue(forKey: failure.id) else { continue }
                    // Ownership: this round's own temporary feed file.
                    unlink(fetch.path)
                    carryOut(machines[fetch.refresh].failed(failure), for: fetch.refresh)
                case .started, .responded, .progress, .filled:
                    break
                }
            }
        }
    }
}
