import ArgumentParser
import PodcastKit
import PodcastText

/// `podcast resume`: continue every unfinished download from its resume data.
struct Resume: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Continue every unfinished download (interrupted, paused, or failed and worth retrying).",
        discussion: """
            Only the missing bytes are fetched when the server still has the same file (checked \
            with If-Range against the ETag or Last-Modified recorded with the partial data); \
            otherwise the episode starts over and says why. Episodes that failed for good (the \
            server said 404, or sent a web page) are left alone, with a line saying how many: \
            download them again by number (podcast download <feed> N). The exit code is about \
            what was resumed.

            Examples:
              podcast resume
              podcast resume --concurrency 1 --limit-rate 1M
              podcast resume --background
            """
    )

    @OptionGroup
    var transfer: TransferOptions

    @OptionGroup
    var background: BackgroundOptions

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        let records = try store.downloads.resumable()
        let listing = try store.currentListing.load()
        let items = records.map { DownloadItem(resuming: $0, listing: listing) }
        if let note = Self.leftAlone(try store.downloads.failedForGood()) { context.console.note(note) }
        guard !items.isEmpty else {
            if output.json { context.console.print(DownloadRendering(results: [], elapsed: .zero).json.serialized(pretty: false)) }
            context.console.message("nothing to resume: no download is unfinished")
            return
        }
        if background.background {
            return try BackgroundSubmission.submit(items, transfer: transfer, background: background, output: output, store: store, context: context)
        }
        let batch = DownloadBatch(store: store, settings: try transfer.settings(context: context))
        do {
            try DownloadSession.run(items, batch: batch, output: output, context: context)
        } catch let error as EpisodesDirectoryError {
            throw error.naming(transfer, context: context)
        }
    }

    /// The line about the episodes that failed for good, which `resume` does not retry (asking
    /// again would meet the same 404 at every run, and its exit code would never say whether
    /// what it did resume succeeded); nil when there are none.
    static func leftAlone(_ failed: [DownloadRecord]) -> String? {
        guard !failed.isEmpty else { return nil }
        let titles = failed.prefix(3).map { "\"\($0.title)\"" }.joined(separator: ", ") + (failed.count > 3 ? ", …" : "")
        return "\(Plural.count(failed.count, "episode")) failed for good and \(failed.count == 1 ? "was" : "were") not retried (\(titles)); "
            + "podcast status lists \(failed.count == 1 ? "it" : "them"), and podcast download <feed> N asks for one again"
    }
}
