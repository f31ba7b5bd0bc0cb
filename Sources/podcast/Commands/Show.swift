import ArgumentParser
import PodcastKit

/// `podcast show <n>`: one episode of the last listing, with its show notes.
struct Show: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one episode of the last listing: its details, download state and show notes.",
        discussion: """
            <n> is a number from the last podcast episodes. The feed is read from the copy podcast \
            keeps of it (fetched again only when there is none), and the show notes are wrapped to \
            the terminal.

            Examples:
              podcast show 3
              podcast show 1 --json
            """
    )

    @Argument(help: "The episode's number in the last listing.")
    var number: Int

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if number < 1 { throw ValidationError("<n> is an episode's number in the last listing, 1 or more, not \(number)") }
    }

    func run() throws {
        let context = try CommandContext.current(tolerant: true)
        let store = try context.openStore()
        guard let listing = try store.currentListing.load() else {
            throw UsageError("there is no listing to show from; run podcast episodes <feed> first")
        }
        guard let item = listing.items.first(where: { $0.number == number }) else {
            throw UsageError("there is no episode \(number) in the last listing (1–\(listing.items.count)); run podcast episodes <feed> to list them again")
        }
        let episode = try Self.episode(item, of: listing, store: store, context: context)
        let record = try store.downloads.records(feed: listing.source.feedKey)[item.identity]
        let rendering = ShowRendering(item: item, episode: episode, listing: listing, record: record)
        if output.json {
            context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
        } else {
            for line in rendering.lines(width: context.console.outputWidth ?? 80) { context.console.print(line) }
        }
    }

    /// The feed's own entry for `item`: from the feed cache or the file the listing came from,
    /// fetched again only when neither has it; nil for a music preview.
    private static func episode(_ item: ListingItem, of listing: Listing, store: StateStore, context: CommandContext) throws -> Episode? {
        guard case .feed(let url, _) = listing.source else { return nil }
        let fetcher = context.feedFetcher(store: store)
        let find = { (result: FeedParser.Result) in result.feed.episodes.first { $0.identity == item.identity } }
        if url.hasPrefix("file://"), let path = try? FeedSource(argument: url), case .file(let file) = path {
            return find(try FeedFile.read(file: file))
        }
        if let cached = try fetcher.cached(url), let episode = find(cached) { return episode }
        return find(try fetcher.fetch(url).result)
    }
}
