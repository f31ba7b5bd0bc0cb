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
            <feed> is an http(s) URL, a file, a number from the last search, or itunes:<id>. A \
            link to a show's page works too: an Apple Podcasts or Overcast link is looked up by its \
            Apple id, and any other web page is read for the feed it names; a note says which. The \
            numbers shown stay valid for `podcast download N`, by episode identity, until the next \
            listing. Feeds are fetched with a conditional GET: an unchanged feed is not downloaded again.

            Examples:
              podcast episodes 1
              podcast episodes https://example.com/feed.xml --limit 10
              podcast episodes itunes:1440215666
              podcast episodes https://overcast.fm/itunes1440215666
              podcast episodes ./saved-feed.xml --json
            """
    )

    @Argument(help: "The feed: a URL (of a feed or a show's page), a file, a number from the last search, or itunes:<id>.")
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
        var context = try CommandContext.current()
        let count = try showEpisodes(context: &context)
        if !output.json && count > 0 {
            let download = context.credentialsAreForThisRunOnly ? "podcast download <the feed with its credentials>" : "podcast download"
            context.console.hint("Download with: \(download) 1   (or 1-3, 2,5, all)")
        }
    }

    /// Reads the feed, shows its episodes and stores the listing; returns how many episodes it lists.
    private func showEpisodes(context: inout CommandContext) throws -> Int {
        let store = try context.openStore()
        let feed = try context.takeCredentials(from: feed, store: store)
        let progressLine = FetchProgressLine(console: context.console)
        let reader = try context.feedReader(store: store, progress: progressLine.show)
        let fetched: FeedFetcher.Fetched
        do {
            defer { progressLine.clear() }
            fetched = try reader.read(try FeedSource(argument: feed), refresh: refresh)
        }
        let parsed = fetched.result.feed
        let url = fetched.url
        // Only what the store recorded shows as downloaded: a file found where an episode would
        // go is not podcast's (FileOwnership).
        let records = try store.downloads.records(feed: url)

        for move in fetched.notes {
            context.console.note(move)
        }
        for warning in fetched.result.warnings {
            context.console.warning(warning)
        }
        let count = min(limit ?? parsed.episodes.count, parsed.episodes.count)
        let rendering = EpisodesRendering(feed: parsed, url: url, count: count, records: records, resolution: fetched.resolution)
        show(rendering, console: context.console)
        // Stored straight from the feed: its items (2 MB for 10,000 episodes) are never all made.
        try store.currentListing.replace(feed: parsed, url: url, limit: limit)
        return count
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
