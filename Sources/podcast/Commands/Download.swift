import ArgumentParser
import FoundationEssentials
import PodcastHTTP
import PodcastKit

/// `podcast download [<feed>] <selection>...`: fetch episodes of the last listing (or of a feed
/// listed first), several at once.
struct Download: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download episodes (or music previews) of the last listing, or of a feed named first.",
        discussion: """
            <selection> is any mix of 3, 1-5, 6- (6 to the end), 2,4,9, all and new (listed, not \
            downloaded, queued, failed for good or deleted by podcast), over the numbers of the last `podcast episodes` \
            (or `podcast search --media music`). --since, --until, --match and --latest narrow it. \
            When the first argument is a feed (an http(s) or file:// URL, a feed file, \
            itunes:<id>, or a show's page naming its feed), it is listed first as podcast episodes would, and the selection (default: \
            1, the newest; all when a filter is given) applies to it. Episodes already downloaded \
            are skipped; unfinished data never sits under a final name.

            Examples:
              podcast download 1
              podcast download 1-3 7 --concurrency 2
              podcast download new --since 2026-11-01
              podcast download https://example.com/feed.xml --latest 3
              podcast download all --limit-rate 2M
              podcast download all --episodes-dir ~/Podcasts
              podcast download all --background --on-complete ./done.sh
              podcast download 3 --force
              podcast download 1-5 --with transcript,image --tag
              podcast download 1 --name-template '{year}/{title}.{ext}'
            """
    )

    @Argument(help: "A feed to list first (optional), then which episodes: 3, 1-5, 6-, 2,4,9, all, new.")
    var selection: [String] = []

    @OptionGroup
    var filters: SelectionFilterOptions

    @OptionGroup
    var transfer: TransferOptions

    @Flag(help: "Fetch episodes already downloaded again; each old file is replaced only once its new copy is complete and checked.")
    var force = false

    @OptionGroup
    var background: BackgroundOptions

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        let words = Self.namesFeed(selection.first) ? Array(selection.dropFirst()) : selection
        if words.isEmpty && !Self.namesFeed(selection.first) {
            throw ValidationError("give the episodes to download (\(Selection.words)), or a feed first")
        }
        if !words.isEmpty { try Selection.validateArgument(words) }
        if force && background.background { throw ValidationError("--force runs in the foreground; leave out --background") }
    }

    func run() throws {
        var context = try CommandContext.current()
        let store = try context.openStore()
        var words = selection
        if Self.namesFeed(words.first) { words[0] = try context.takeCredentials(from: words[0], store: store) }
        let items = try selectedItems(words, store: store, context: context)
        guard !items.isEmpty else {
            if output.json { context.console.print(DownloadRendering(results: [], elapsed: .zero).json.serialized(pretty: false)) }
            context.console.message("no episode matches the selection and filters; nothing to download")
            return
        }
        if background.background {
            return try BackgroundSubmission.submit(items, transfer: transfer, background: background, output: output, store: store, context: context)
        }
        let batch = DownloadBatch(store: store, settings: try transfer.settings(context: context), force: force)
        do {
            try DownloadSession.run(items, batch: batch, output: output, context: context)
        } catch let error as EpisodesDirectoryError {
            throw error.naming(transfer, context: context)
        }
    }

    /// True when `argument` names a feed rather than episodes: an http(s) or file:// URL,
    /// itunes:<id>, or a path (with a `/` or an .xml/.rss name) to a file.
    static func namesFeed(_ argument: String?) -> Bool {
        guard let argument, !argument.isEmpty else { return false }
        let lower = argument.lowercased()
        if HTTPClient.isHTTP(argument) || lower.hasPrefix("file://") || lower.hasPrefix("itunes:") { return true }
        return (argument.contains("/") || lower.hasSuffix(".xml") || lower.hasSuffix(".rss")) && (try? Selection([argument])) == nil
    }

    /// The episodes `words` select from the listing (the feed's, when one is named first, listed now).
    private func selectedItems(_ words: [String], store: StateStore, context: CommandContext) throws -> [DownloadItem] {
        var words = words
        let listing: Listing
        if Self.namesFeed(words.first) {
            listing = try list(words.removeFirst(), store: store, context: context)
            if words.isEmpty { words = [filters.filter.isEmpty ? "1" : "all"] }
        } else {
            guard let current = try store.currentListing.load() else {
                throw UsageError("there is no listing to download from; run podcast episodes <feed> first, or name the feed first")
            }
            listing = current
        }
        return try listing.selectedItems(words, filter: filters.filter, records: try store.downloads.records(feed: listing.source.feedKey))
    }

    /// Fetches and lists `feed` as `podcast episodes` would, and remembers the listing.
    private func list(_ feed: String, store: StateStore, context: CommandContext) throws -> Listing {
        let reader = try context.feedReader(store: store)
        let fetched = try reader.read(try FeedSource(argument: feed), refresh: false)
        for move in fetched.notes { context.console.note(move) }
        for warning in fetched.result.warnings { context.console.warning(warning) }
        let listing = Listing(feed: fetched.result.feed, url: fetched.url)
        try store.currentListing.replace(with: listing)
        return listing
    }
}
