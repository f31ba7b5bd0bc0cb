import ArgumentParser
import Glibc
import PodcastKit
import PodcastPlatform

/// `podcast episodes <feed>`: fetch, parse and list a feed's episodes, newest first.
struct Episodes: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "episodes",
        abstract: "List a podcast's episodes, newest first.",
        discussion: """
            <feed> is an http(s) URL, a file, a number from the last search, or itunes:<id>. The \
            numbers shown stay valid for `podcast download N`, by episode identity, until the next \
            listing. Feeds are fetched with a conditional GET: an unchanged feed is not downloaded again.

            Examples:
              podcast episodes 1
              podcast episodes https://example.com/feed.xml --limit 10
              podcast episodes itunes:1440215666
              podcast episodes ./saved-feed.xml --json
            """
    )

    @Argument(help: "The feed: a URL, a file, a number from the last search, or itunes:<id>.")
    var feed: String

    @Option(help: "Show only the newest N episodes.")
    var limit: Int?

    @Flag(help: "Fetch the feed in full even when the server says it has not changed.")
    var refresh = false

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if let limit, limit < 1 {
            throw ValidationError("--limit must be 1 or more, not \(limit)")
        }
    }

    func run() throws {
        let context = try CommandContext.current()
        let listed = try showEpisodes(context: context)
        // Everything the showing held (the feed, this thread's store) was let go on its return:
        // the feed's memory is freed by whichever thread lets go of it last, and the store's
        // last connection, which copies its log into the database, is the storing thread's.
        try listed.saving?.wait()
        if !output.json && listed.count > 0 {
            context.console.hint("Download with: podcast download 1   (or 1-3, 2,5, all)")
        }
    }

    /// Reads the feed, shows its episodes and has the listing stored; returns the thread storing
    /// it (nil once stored here, when no thread can be started) and how many episodes it lists.
    private func showEpisodes(context: CommandContext) throws -> (saving: BackgroundThread<Void, StoreError>?, count: Int) {
        let source = Result { () throws(UsageError) in try FeedSource(argument: feed) }
        // A file is read without the store, which is meanwhile created (or brought up to date) on
        // a second core: for a new home that is most of a short run, a wait on the disk included.
        let paths = context.paths
        let fileRead: (preparing: BackgroundThread<Void, StoreError>?, result: Result<FeedFetcher.Fetched, FeedError>)?
        if case .success(.file(let path)) = source {
            let preparing = BackgroundThread { () throws(StoreError) in _ = try StateStore.open(paths: paths) }
            fileRead = (preparing, Result { () throws(FeedError) in try FeedReader.read(file: path) })
        } else {
            fileRead = nil
        }
        // Failures are reported in the order the steps have without the early read: the store's,
        // the reader's, the argument's, the feed's.
        try fileRead?.preparing?.wait()
        let store = try context.openStore()
        let progressLine = FetchProgressLine(console: context.console)
        let reader = try context.feedReader(store: store, progress: progressLine.show)
        let fetched: FeedFetcher.Fetched
        if let fileRead {
            fetched = try fileRead.result.get()
        } else {
            defer { progressLine.clear() }
            fetched = try reader.read(try source.get(), refresh: refresh)
        }
        let parsed = fetched.result.feed
        let url = fetched.url
        let limit = limit
        // Stored beside the output, on a second core, through a store of its own (or after it,
        // here, when no thread can be started): storing a long listing takes about as long as
        // writing it out, so the thread starts as soon as it can. The listing is stored straight
        // from the feed: its items (2 MB for 10,000 episodes, the run's peak of memory) are never
        // all made. Only what the store recorded shows as downloaded: a file found where an
        // episode would go is not podcast's (FileOwnership).
        let storeListing: @Sendable (StateStore) throws(StoreError) -> Void = { store throws(StoreError) in
            try store.replaceListing(feed: parsed, url: url, limit: limit)
        }
        let saving = Self.startStoring(storeListing, paths: paths)
        Self.returnFreedMemory()
        let records = try store.downloadRecords(feed: url)

        for move in fetched.moves {
            context.console.note(move)
        }
        for warning in fetched.result.warnings {
            context.console.warning(warning)
        }
        let count = min(limit ?? parsed.episodes.count, parsed.episodes.count)
        let rendering = EpisodesRendering(feed: parsed, url: url, count: count, records: records)
        show(rendering, console: context.console)
        if saving == nil { try storeListing(store) }
        return (saving, count)
    }

    /// Starts the thread that stores the listing with `storeListing`; nil when no thread can be started.
    private static func startStoring(
        _ storeListing: @escaping @Sendable (StateStore) throws(StoreError) -> Void, paths: PodcastPaths
    ) -> BackgroundThread<Void, StoreError>? {
        BackgroundThread { () throws(StoreError) in
            let store = try StateStore.open(paths: paths)
            try storeListing(store)
            // Here, beside the output, rather than when the last connection closes, after it.
            try store.checkpoint()
        }
    }

    /// Gives the memory that reading the document used and let go (libxml2's buffers, the items
    /// on their way between threads) back to the system with glibc's `malloc_trim`, before the
    /// listing is stored and shown: the run's peak of memory comes after this point, and freed
    /// pages would otherwise stay counted in it. Looked up at run time: `malloc.h` is not part of
    /// the Glibc module.
    private static func returnFreedMemory() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(trim, to: Trim.self)(0)
    }

    private func show(_ rendering: EpisodesRendering, console: Console) {
        if output.json {
            // Streamed: the document of a long feed is never held whole.
            rendering.json.write(pretty: console.stdoutIsTerminal) { Console.write($0, to: STDOUT_FILENO) }
            console.print("")
        } else if rendering.count == 0 {
            console.note("feed \(rendering.url) (\(rendering.feed.title)) has no episodes")
        } else {
            for line in rendering.table.render(width: console.outputWidth).lines {
                console.print(line)
            }
        }
    }
}
