import PodcastHTTP

/// One feed's fetch, step by step: a value with one `mutating func` per event, each returning
/// what to do next, so every branch (not modified, the same bytes again, a move,
/// `itunes:new-feed-url`, paging, 410 Gone, a failure) is tested without a server. The one
/// answer to how a feed is fetched, whichever command asks: `FeedRound` carries the actions out
/// on the transfer engine, for `update` many feeds at once beside its downloads, and
/// `FeedFetcher` for one feed (`episodes`, `show`, `subscribe`, `download <feed>`).
///
/// A listing (`listsUnchanged`) wants the episodes even when the feed has not changed: a 304
/// then asks to parse the cached answer, and the pages after it are read as ever. An update
/// wants only what changed: a 304, or the same bytes as last time, ends the fetch.
///
/// A move onto an address another subscription has (its current one or an earlier one) is
/// refused here, before anything of the document there is used: a feed could otherwise take
/// over any other subscription, its title and its back catalogue (issue 27). A refused
/// `itunes:new-feed-url` is not fetched, and the feed is read from the document it came in; a
/// permanent redirect has already brought the other feed's document, so the fetch fails and
/// none of it is kept.
///
/// A subscription that has no baseline yet (imported from OPML as its show's web page, never
/// read) may answer with a web page: when asked (`followsPage`), the page is read for the feed
/// it names (`FeedPage`, as `subscribe` reads one), and the subscription moves there, said like
/// any move. An established subscription that answers with a page fails as ever: a page must not
/// move it in silence.
struct FeedRefresh {
    /// How a feed moved.
    struct Move: Sendable, Equatable {
        /// The cause, for the user.
        enum Cause: Sendable, Equatable {
            case permanentRedirect
            case newFeedURL
            /// The address answered with a web page naming the feed (`followsPage`).
            case page(FeedResolution)

            /// What the old address did, in a line that names it first and goes on `to <new address>`.
            var verb: String {
                switch self {
                case .permanentRedirect: "redirects permanently"
                case .newFeedURL: "says it moved (itunes:new-feed-url)"
                case .page: "is a web page pointing"
                }
            }
        }

        var from: String
        var to: String
        var cause: Cause
    }

    /// The subscription that has an address.
    struct Owner: Sendable, Equatable {
        var subscription: Int
        var title: String
    }

    /// A move not followed, because another subscription has the address it leads to.
    struct RefusedMove: Sendable, Equatable, CustomStringConvertible {
        var move: Move
        /// The title of the subscription that has the address.
        var owner: String
        /// True when the feed was still read, from its own document (a refused
        /// `itunes:new-feed-url`); false when the fetch failed (a permanent redirect).
        var readWhereItIs: Bool

        /// The line that says so, naming both addresses and the other subscription.
        var description: String {
            let outcome = readWhereItIs
                ? "the move is refused and the feed is read where it is"
                : "the move is refused and nothing of that feed is recorded for this subscription"
            return "\(move.from) \(move.cause.verb) to \(move.to), which is the subscription "
                + "\"\(owner)\": \(outcome); if the two are the same podcast, unsubscribe one of them"
        }
    }

    /// One answer of the server that the engine delivered whole.
    struct Answer: Sendable, Equatable {
        /// 200, or 304 for a conditional request.
        var status: Int
        /// Where the permanent redirects it followed led, if any.
        var permanentTarget: String?
        /// The body's SHA-256, for a first page (nil for later pages).
        var digest: String?
    }

    /// What to do next.
    enum Action: Sendable, Equatable {
        /// Fetch `url`, conditionally (with the cached validators) or not.
        case fetch(url: String, conditional: Bool)
        /// Parse the body just fetched, as the document at `url`.
        case parse(url: String)
        /// The answer at `url` is a web page: fetch it as a page (the feed lane stops at a page's
        /// first bytes), read it for the feed it names (`FeedPage`) and hand that to `pageRead`.
        case readPage(url: String)
        /// The feed is done.
        case end(Ending)
    }

    /// How the fetch ended.
    enum Ending: Sendable, Equatable {
        /// Nothing to look at: 304, or the same bytes as last time.
        case unchanged
        /// Read: its episodes (every page) to look at.
        case updated
        /// 410 Gone.
        case gone
        /// Could not be fetched or parsed.
        case failed(FeedError)
    }

    /// What the subscription's last recorded fetch was answered with.
    struct LastAnswer: Sendable, Equatable {
        /// The first page's SHA-256: the same bytes need no parsing.
        var digest: String?
        /// Its validators, for a conditional GET.
        var etag: String?
        var lastModified: String?

        /// The headers of a conditional GET with these validators (none when there are none).
        var conditions: [String] {
            [etag.map { "If-None-Match: \($0)" }, lastModified.map { "If-Modified-Since: \($0)" }].compactMap { $0 }
        }
    }

    /// What the refresh was asked to do, fixed at its start.
    struct Asked {
        /// The subscription it is for (0 for a feed no subscription asked for).
        var subscription: Int
        /// Where the subscription says the feed lives.
        var requested: String
        /// What its last recorded fetch was answered with.
        var last: LastAnswer
        /// Every address a subscription has, by `FeedAddress.normalized`: where this one may not
        /// move unless the owner is itself.
        var owners: [String: Owner]
        /// True when the episodes are wanted even if the feed has not changed (a listing).
        var listsUnchanged: Bool
        /// True when a web page at the address stands for the feed it names (a subscription
        /// with no baseline yet).
        var followsPage: Bool
    }

    let asked: Asked
    /// The subscription it is for (0 for a feed no subscription asked for).
    var subscription: Int { asked.subscription }
    /// Where the subscription says the feed lives.
    var requested: String { asked.requested }
    /// What its last recorded fetch was answered with.
    var last: LastAnswer { asked.last }
    /// Where the feed lives now (the requested address, or where it moved).
    private(set) var address: String
    /// How it moved on the way.
    private(set) var moves: [Move] = []
    /// The moves it did not follow (another subscription has their address).
    private(set) var refused: [RefusedMove] = []
    /// The URL asked for the first page of the document in use: the answer whose validators and
    /// cached body are recorded with its episodes.
    private(set) var documentURL: String
    /// The pages read so far, merged; nil before the first.
    private(set) var result: FeedParser.Result?
    /// The first page's digest as fetched this time (to remember for next time).
    private(set) var digest: String?
    /// True when the server said the first page had not changed (a listing reads it from the cache).
    private(set) var notModified = false
    /// How many pages were read.
    private(set) var pages = 0
    /// False when a page after the first could not be read: the episodes read are the feed's,
    /// but it must be read whole again next time, so its validators and digest are not kept.
    private(set) var isWhole = true
    private var followedNewFeedURL = false
    private var visited: Set<String>
    /// The document at the feed's own address, kept while its `itunes:new-feed-url` is
    /// fetched: when that leads to another subscription's address, this is the feed again.
    private var ownDocument: Document?
    /// Where the feed was before the web page there was followed to the feed it names: the
    /// subscription stays there when that feed cannot be read.
    private var beforePage: (address: String, moves: [Move], documentURL: String)?

    /// A first page read, and where and how it was reached.
    private struct Document {
        var address: String
        var moves: [Move]
        var page: FeedParser.Result
        var digest: String?
        var documentURL: String
    }

    /// The most pages read of one paged feed.
    static let maxPages = 50

    /// A refresh of subscription `subscription` at `url`, whose last recorded fetch was answered
    /// with `last`; `owners` are the subscriptions' addresses, by `FeedAddress.normalized`;
    /// `followsPage` lets a web page there stand for the feed it names.
    init(
        subscription: Int, url: String, last: LastAnswer = LastAnswer(), owners: [String: Owner] = [:], listsUnchanged: Bool = false,
        followsPage: Bool = false
    ) {
        asked = Asked(
            subscription: subscription, requested: url, last: last, owners: owners, listsUnchanged: listsUnchanged, followsPage: followsPage)
        address = url
        documentURL = url
        visited = [url]
    }

    // MARK: Events

    /// The first request: conditional (when there are validators) unless `refresh` asks for the whole feed.
    func begin(refresh: Bool) -> Action {
        .fetch(url: requested, conditional: !refresh && !last.conditions.isEmpty)
    }

    /// The server answered the last request.
    mutating func answered(_ answer: Answer) -> Action {
        guard pages == 0 else { return .parse(url: currentPage) }
        // A new address enters podcast in its one form (`FeedAddress`): a respelling is no move.
        if let target = answer.permanentTarget.map(FeedAddress.normalized), target != address {
            let move = Move(from: address, to: target, cause: .permanentRedirect)
            if let owner = otherOwner(of: target) {
                // The body that came is the other subscription's feed: none of it is this one's.
                if let own = ownDocument {
                    refused.append(RefusedMove(move: move, owner: owner.title, readWhereItIs: true))
                    return readOwnDocument(own, warning: nil)
                }
                let refusal = RefusedMove(move: move, owner: owner.title, readWhereItIs: false)
                refused.append(refusal)
                returnToPage()
                return .end(.failed(FeedError(.movedOntoAnother(refusal.description), source: requested)))
            }
            moves.append(move)
            address = target
            visited.insert(target)
        }
        if answer.status == 304 {
            // The cached answer is the document now: a listing reads it (`parse` of a 304).
            notModified = true
            return asked.listsUnchanged ? .parse(url: address) : .end(.unchanged)
        }
        digest = answer.digest
        // A server that ignores validators sends the same bytes again: they were read last time.
        if !followedNewFeedURL, !asked.listsUnchanged, let digest, digest == last.digest { return .end(.unchanged) }
        return .parse(url: address)
    }

    /// The body just fetched was parsed (or could not be).
    mutating func parsed(_ outcome: Result<FeedParser.Result, FeedError>) -> Action {
        switch outcome {
        case .failure(let error):
            return unreadable(error)
        case .success(let page):
            pages += 1
            if var result {
                result.feed.episodes += page.feed.episodes
                result.warnings += page.warnings
                result.feed.nextPageURL = page.feed.nextPageURL
                self.result = result
            } else {
                result = page
                if !followedNewFeedURL, let newURL = page.feed.newFeedURL.map(FeedAddress.normalized), newURL != address,
                    HTTPClient.isHTTP(newURL)
                {
                    let move = Move(from: address, to: newURL, cause: .newFeedURL)
                    if let owner = otherOwner(of: newURL) {
                        // Another subscription's address: not fetched; this document is the feed.
                        refused.append(RefusedMove(move: move, owner: owner.title, readWhereItIs: true))
                        return nextPage()
                    }
                    // The feed says where it lives now: read it from there, and remember that.
                    ownDocument = Document(address: address, moves: moves, page: page, digest: digest, documentURL: documentURL)
                    followedNewFeedURL = true
                    notModified = false
                    moves.append(move)
                    documentURL = newURL
                    address = newURL
                    visited.insert(newURL)
                    self.result = nil
                    pages = 0
                    return .fetch(url: newURL, conditional: false)
                }
            }
            return nextPage()
        }
    }

    /// The web page at the feed's address was read (`readPage`): the feed it names is fetched
    /// from there on, unless another subscription has that address (as for any move).
    mutating func pageRead(_ outcome: Result<FeedResolution, FeedError>) -> Action {
        let resolution: FeedResolution
        switch outcome {
        case .failure(let error): return .end(.failed(error))
        case .success(let found): resolution = found
        }
        let feed = FeedAddress.normalized(resolution.chosen)
        let move = Move(from: address, to: feed, cause: .page(resolution))
        if let owner = otherOwner(of: feed) {
            let refusal = RefusedMove(move: move, owner: owner.title, readWhereItIs: false)
            refused.append(refusal)
            return .end(.failed(FeedError(.movedOntoAnother(refusal.description), source: requested)))
        }
        beforePage = (address, moves, documentURL)
        moves.append(move)
        address = feed
        documentURL = feed
        digest = nil
        visited.insert(feed)
        return .fetch(url: feed, conditional: false)
    }

    /// The last request failed.
    mutating func failed(_ error: FeedError) -> Action {
        if result == nil, ownDocument == nil, beforePage == nil, case .http(let http) = error.kind, http.kind == .status(410),
            !asked.listsUnchanged
        {
            return .end(.gone)
        }
        return unreadable(error)
    }

    /// What the page just asked for could not be fetched or read: a web page at the address of a
    /// subscription never read yet is read for the feed it names (`followsPage`); a later page
    /// only ends the feed early (the pages read are still the feed, but it is not whole:
    /// `isWhole`); the document at an `itunes:new-feed-url` leaves the feed read where it was; a
    /// feed a page named leaves the subscription at the page; the feed itself fails.
    private mutating func unreadable(_ error: FeedError) -> Action {
        if error.kind == .html, asked.followsPage, beforePage == nil, result == nil, ownDocument == nil, !followedNewFeedURL {
            return .readPage(url: address)
        }
        if var result {
            isWhole = false
            result.warnings.append("page \(pages + 1) of feed \(address) could not be read (\(error)); using the first \(pages)")
            self.result = result
            return finish()
        }
        if let own = ownDocument {
            let warning = "feed \(own.address) says it moved to \(address) (itunes:new-feed-url), but that address could not be "
                + "read (\(error)); the feed is read where it is"
            return readOwnDocument(own, warning: warning)
        }
        if let page = beforePage {
            var error = error
            error.source = "\(address) (found from \(page.address))"
            returnToPage()
            return .end(.failed(error))
        }
        return .end(.failed(error))
    }

    /// Back at the web page the feed was found on (`pageRead`), as if the page's move had not
    /// been seen: a feed that cannot be read, or that moves onto another subscription's, does not
    /// move the subscription, and the next update reads the page again.
    private mutating func returnToPage() {
        guard let page = beforePage else { return }
        (address, moves, documentURL) = page
        beforePage = nil
    }

    /// Lets go of the pages read, once the feed's end was recorded.
    mutating func releasePages() {
        result = nil
    }

    // MARK: Steps

    /// The subscription other than this one that has `url` (current or earlier address), if any.
    private func otherOwner(of url: String) -> Owner? {
        guard let owner = asked.owners[FeedAddress.normalized(url)], owner.subscription != subscription else { return nil }
        return owner
    }

    /// Goes back to the document at the feed's own address, as if its move had not been seen,
    /// with `warning` (if any) among its warnings.
    private mutating func readOwnDocument(_ own: Document, warning: String?) -> Action {
        ownDocument = nil
        address = own.address
        moves = own.moves
        digest = own.digest
        documentURL = own.documentURL
        result = own.page
        if let warning { result?.warnings.append(warning) }
        pages = 1
        return nextPage()
    }

    /// The URL of the page being fetched: the next page of what was read, or the feed itself.
    private var currentPage: String {
        result?.feed.nextPageURL ?? address
    }

    /// The next page of a paged feed (RFC 5005), or the end.
    private mutating func nextPage() -> Action {
        guard var result else { return .end(.updated) }
        guard let next = result.feed.nextPageURL, HTTPClient.isHTTP(next), !visited.contains(next) else { return finish() }
        guard pages < Self.maxPages, result.feed.episodes.count < FeedBuilder.maxItems else {
            result.warnings.append("feed \(address) has more pages than podcast reads (\(pages) pages, "
                + "\(result.feed.episodes.count) episodes); the rest were not read")
            self.result = result
            return finish()
        }
        visited.insert(next)
        return .fetch(url: next, conditional: false)
    }

    /// The end of a feed read: its pages' episodes in one order, each once.
    private mutating func finish() -> Action {
        if pages > 1, var result {
            let duplicates = FeedParser.orderNewestFirst(&result.feed.episodes)
            if duplicates > 0 {
                result.warnings.append("feed \(address) lists \(duplicates) episodes on more than one page; each is shown once")
            }
            self.result = result
        }
        return .end(.updated)
    }
}
