import ArgumentParser
import FoundationEssentials
import PodcastKit

/// `podcast download <selection>...`: fetch episodes of the last listing, several at once.
struct Download: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download episodes (or music previews) of the last listing.",
        discussion: """
            <selection> is any mix of 3, 1-5, 2,4,9 and all, over the numbers of the last \
            `podcast episodes` (or `podcast search --media music`). Episodes already downloaded are \
            skipped; unfinished data never sits under a final name.

            Examples:
              podcast download 1
              podcast download 1-3 7 --concurrency 2
              podcast download all --limit-rate 2M --episodes-dir ~/Podcasts
            """
    )

    @Argument(help: "Which episodes: 3, 1-5, 2,4,9, all.")
    var selection: [String]

    @Option(help: "Episodes downloaded at once (1–16; default 3, or `concurrency` in the configuration file).")
    var concurrency: Int?

    @Option(help: "Where finished episodes go (default: $PODCAST_EPISODES_DIR or $PODCAST_HOME/Episodes).")
    var episodesDir: String?

    @Option(help: "Cap the whole run's speed, in bytes per second, with k or M (500k, 2M).")
    var limitRate: String?

    @Option(help: "A transfer slower than 1 KiB/s for this many seconds has stalled.")
    var stallTimeout: Int?

    @Option(help: "Send this User-Agent instead of podcast/<version>.")
    var userAgent: String?

    @Option(help: "An extra request header, 'Name: value' (repeatable).")
    var header: [String] = []

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        do {
            _ = try Selection(selection)
        } catch {
            throw ValidationError(error.description)
        }
        if let concurrency, !(1...16).contains(concurrency) {
            throw ValidationError("--concurrency must be between 1 and 16, not \(concurrency)")
        }
        if let limitRate, ByteRate.bytesPerSecond(limitRate) == nil {
            throw ValidationError("--limit-rate takes bytes per second such as 500k or 2M, not \"\(limitRate)\"")
        }
        if let stallTimeout, stallTimeout < 1 { throw ValidationError("--stall-timeout must be 1 or more seconds") }
        for header in header where !header.contains(":") {
            throw ValidationError("--header takes 'Name: value', not \"\(header)\"")
        }
    }

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        guard let listing = try store.currentListing() else {
            throw UsageError("there is no listing to download from; run podcast episodes <feed> first")
        }
        let numbers = try Selection(selection).numbers(inListingOf: listing.items.count)
        let items = DownloadItem.items(numbers, of: listing)

        var http = context.configuration.httpSettings
        if let userAgent { http.userAgent = userAgent }
        if let stallTimeout { http.stallTimeout = stallTimeout }
        http.extraHeaders = header
        let configuration = context.configuration
        let settings = TransferEngine.Settings(
            concurrency: concurrency ?? configuration.concurrency ?? 3,
            rateLimit: limitRate.flatMap(ByteRate.bytesPerSecond) ?? configuration.limitRate, http: http)
        // The option, then the environment, then the configuration file, then the default.
        let fromEnvironment = context.environment["PODCAST_EPISODES_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        let directory = episodesDir ?? fromEnvironment ?? configuration.episodesDirectory ?? context.paths.episodesDirectory
        let batch = DownloadBatch(store: store, episodesDirectory: Self.absolute(directory, environment: context.environment), settings: settings)

        let started = ContinuousClock.now
        Interruption.exitCleanlyOnSignals()
        let display = ProgressDisplay(console: context.console)
        let results: [DownloadResult]
        do {
            defer { display.close() }
            results = try batch.run(items) { display.show($0) }
        }

        let rendering = DownloadRendering(results: results, elapsed: ContinuousClock.now - started)
        if output.json {
            context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
        }
        context.console.message(rendering.summary)
        if results.contains(where: { $0.state == .failed }) {
            throw ExitCode(ExitStatus.operationFailed)
        }
    }

    /// `path` with `~` expanded and made absolute, so records name files that every later run,
    /// from any directory, can find.
    static func absolute(_ path: String, environment: [String: String]) -> String {
        var expanded = path
        if expanded == "~" || expanded.hasPrefix("~/") {
            expanded = (environment["HOME"] ?? "") + expanded.dropFirst()
        }
        return expanded.hasPrefix("/") ? expanded : FileManager.default.currentDirectoryPath + "/" + expanded
    }
}
