import FoundationEssentials

/// Fetches feeds over HTTP: conditional GET against a cache (a 304 re-reads the stored answer),
/// permanent moves and `itunes:new-feed-url` followed and reported, and RFC 5005 pages followed,
/// boundedly, so a back catalogue split over pages is complete.
///
/// Blocks the calling thread (see `HTTPClient`); not Sendable through its cache.
public struct FeedFetcher {
    /// A fetched feed and how it was reached.
    public struct Fetched: Sendable {
        /// The feed (all pages merged) and what to warn about.
        public var result: FeedParser.Result
        /// The address to remember for the feed: where it lives now.
        public var url: String
        /// How the feed moved, one line each, to tell the user.
        public var moves: [String]
        /// True when the server said the first page had not changed since the last fetch.
        public var notModified: Bool
        /// How many pages were read.
        public var pages: Int
        /// The first page's validators, when it was fetched whole or answered 304 (for the
        /// conditional GET of a subscription's first update).
        public var validators: FeedCacheEntry?
    }

    /// The most pages read of one paged feed.
    public static let maxPages = 50

    /// The HTTP client requests go through.
    public var http: HTTPClient
    /// Validators of earlier answers.
    public var cache: any FeedCache
    /// The directory keeping the bodies of earlier answers.
    public var cacheDirectory: String
    /// Told how much of a page has arrived, on the thread that called `fetch`, as bytes arrive:
    /// once a page has taken a second, and then at most four times a second (`ProgressPacing`).
    public var progress: ((FeedFetchProgress) -> Void)?

    /// A fetcher using `http`, remembering answers in `cache` and `cacheDirectory`; `progress`,
    /// when given, hears how a slow page is coming along.
    public init(
        http: HTTPClient, cache: any FeedCache, cacheDirectory: String, progress: ((FeedFetchProgress) -> Void)? = nil
    ) {
        self.http = http
        self.cache = cache
        self.cacheDirectory = cacheDirectory
        self.progress = progress
    }

    /// Fetches the feed at `url`; `refresh` skips the conditional GET.
    public func fetch(_ url: String, refresh: Bool = false) throws(FeedError) -> Fetched {
        var moves: [String] = []
        var first = try fetchPage(url, conditional: !refresh)
        // Where the feed says it lives enters podcast like a <feed> argument: in its one form
        // (`FeedAddress`), so a respelling of the same address is no move.
        var address = first.permanentTarget.map(FeedAddress.normalized) ?? url
        if address != url {
            moves.append("feed \(URLRedaction.redacted(url)) has moved permanently to \(URLRedaction.redacted(address)); use the new address from now on")
        }
        if let newURL = first.result.feed.newFeedURL.map(FeedAddress.normalized), newURL != address, HTTPClient.isHTTP(newURL) {
            moves.append("feed \(URLRedaction.redacted(address)) says it has moved to \(URLRedaction.redacted(newURL)) (itunes:new-feed-url); reading it from there")
            first = try fetchPage(newURL, conditional: !refresh)
            address = first.permanentTarget.map(FeedAddress.normalized) ?? newURL
        }

        var result = first.result
        var visited: Set<String> = [url, address]
        var next = result.feed.nextPageURL
        var pages = 1
        while let page = next, HTTPClient.isHTTP(page), visited.insert(page).inserted {
            guard pages < Self.maxPages, result.feed.episodes.count < FeedBuilder.maxItems else {
                result.warnings.append("feed \(address) has more pages than podcast reads (\(Plural.count(pages, "page")), "
                    + "\(Plural.count(result.feed.episodes.count, "episode"))); the rest were not read")
                break
            }
            let fetched: FeedParser.Result
            do {
                fetched = try fetchPage(page, conditional: false).result
            } catch {
                // The pages already read are still the feed; a broken later page only ends it early.
                result.warnings.append("page \(pages + 1) of feed \(address) could not be read (\(error)); listing the first \(pages)")
                break
            }
            result.feed.episodes += fetched.feed.episodes
            result.warnings += fetched.warnings
            next = fetched.feed.nextPageURL
            pages += 1
        }
        if pages > 1 {
            let duplicates = FeedParser.orderNewestFirst(&result.feed.episodes)
            if duplicates > 0 {
                result.warnings.append("feed \(address) lists \(Plural.count(duplicates, "episode")) on more than one page; each is shown once")
            }
        }
        var fetched = Fetched(result: result, url: address, moves: moves, notModified: first.notModified, pages: pages)
        fetched.validators = first.validators
        return fetched
    }

    /// The feed at `url` as last fetched, read from the feed cache without asking the server, or
    /// nil when the cache has no whole copy of it.
    public func cached(_ url: String) throws(FeedError) -> FeedParser.Result? {
        guard let entry = (try? cache.feedCacheEntry(url: url)) ?? nil else { return nil }
        let path = cacheDirectory + "/" + entry.bodyFile
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try Self.parse(file: path, url: url, source: url)
    }

    /// Reads a feed from a file on this machine.
    public static func read(file path: String) throws(FeedError) -> FeedParser.Result {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return try parse(file: absolute, url: "file://" + absolute.replacing(" ", with: "%20"), source: path)
    }

    /// Parses the file at `path` as the document at `url`, named `source` in errors; `httpCharset`
    /// is the charset its server named, if any.
    static func parse(file path: String, url: String, source: String, httpCharset: String? = nil) throws(FeedError) -> FeedParser.Result {
        let parser = FeedParser(url: url, source: source, httpCharset: httpCharset)
        do {
            try FileIO.read(path) { bytes in
                parser.parse(bytes)
                return parser.wantsMoreBytes
            }
        } catch {
            throw FeedError(.unreadable(error), source: source)
        }
        return try parser.finish()
    }

    // MARK: One page

    private struct Page {
        var result: FeedParser.Result
        var permanentTarget: String?
        var notModified: Bool
        var validators: FeedCacheEntry?
    }

    private func fetchPage(_ url: String, conditional: Bool) throws(FeedError) -> Page {
        let bodyFile = Self.cacheFileName(for: url)
        let bodyPath = cacheDirectory + "/" + bodyFile
        var headers: [String] = []
        let cached = conditional ? (try? cache.feedCacheEntry(url: url)) ?? nil : nil
        if let cached, FileManager.default.fileExists(atPath: cacheDirectory + "/" + cached.bodyFile) {
            if let etag = cached.etag { headers.append("If-None-Match: \(etag)") }
            if let lastModified = cached.lastModified { headers.append("If-Modified-Since: \(lastModified)") }
        }
        try? FileIO.makeDirectory(cacheDirectory)
        let writer = try? AtomicFileWriter(destination: bodyPath)
        var parser: FeedParser?
        var received = 0
        var pacing = ProgressPacing(start: .now)

        let response: HTTPResponse
        do {
            response = try http.stream(url, headers: headers, accepting: 200...304, begin: { contentType, finalURL in
                parser = FeedParser(url: finalURL.isEmpty ? url : finalURL, source: url, httpCharset: Self.charset(of: contentType))
            }, consume: { bytes in
                received += bytes.count
                if let progress, pacing.isDue(at: .now) { progress(FeedFetchProgress(url: url, receivedBytes: received)) }
                writer?.write(bytes)
                parser?.parse(bytes)
                return parser?.wantsMoreBytes ?? true
            })
        } catch {
            throw FeedError(.http(error), source: url)
        }
        let permanentTarget = response.permanentRedirect.flatMap(URLResolver(documentURL: url).resolve)

        if response.status == 304, let cached {
            // The stored answer, read again as if it had just arrived from `url`.
            let result = try Self.parse(file: cacheDirectory + "/" + cached.bodyFile, url: url, source: url)
            return Page(result: result, permanentTarget: permanentTarget, notModified: true, validators: cached)
        }
        guard (200...299).contains(response.status) else {
            throw FeedError(.http(.status(response.status, url: response.effectiveURL, retryAfter: nil)), source: url)
        }
        guard let parser else { throw FeedError(.empty, source: url) }
        let result = try parser.finish()
        // Only a whole answer is worth a conditional GET next time.
        var validators: FeedCacheEntry?
        if !response.stoppedByConsumer, let writer, (try? writer.commit()) != nil {
            validators = FeedCacheEntry(
                url: url, etag: response.header("etag"), lastModified: response.header("last-modified"),
                bodyFile: bodyFile, fetchedAt: Date())
            try? validators.map(cache.saveFeedCacheEntry)
        }
        return Page(result: result, permanentTarget: permanentTarget, notModified: false, validators: validators)
    }

    /// The `charset` parameter of a Content-Type, without quotes, if any.
    static func charset(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, String(pair[0]).trimmingWhitespace().lowercased() == "charset" else { continue }
            let value = String(pair[1]).trimmingWhitespace().withoutQuotes()
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// A stable file name for a URL's cached body.
    static func cacheFileName(for url: String) -> String {
        StableHash.hex(url) + ".xml"
    }
}

private extension String {
    /// The string without surrounding single or double quotes.
    func withoutQuotes() -> String {
        var text = Substring(self)
        while let first = text.first, first == "\"" || first == "'" { text = text.dropFirst() }
        while let last = text.last, last == "\"" || last == "'" { text = text.dropLast() }
        return String(text)
    }
}
