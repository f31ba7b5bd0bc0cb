import ArgumentParser
import PodcastKit

/// `podcast resume`: continue every unfinished download from its resume data.
struct Resume: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Continue every unfinished download (interrupted, paused, or failed and worth retrying).",
        discussion: """
            Only the missing bytes are fetched when the server still has the same file (checked \
            with If-Range against the ETag or Last-Modified recorded with the partial data); \
            otherwise the episode starts over and says why. Episodes that failed for good (the \
            server said 404, or sent a web page) are left alone: download them again by number.

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
        let records = try store.unfinishedDownloads()
        let listing = try store.currentListing()
        let items = records.map { DownloadItem(resuming: $0, listing: listing) }
        guard !items.isEmpty else {
            if output.json { context.console.print(DownloadRendering(results: [], elapsed: .zero).json.serialized(pretty: false)) }
            context.console.message("nothing to resume: no download is unfinished")
            return
        }
        if background.background {
            return try BackgroundSubmission.submit(items, transfer: transfer, background: background, output: output, store: store, context: context)
        }
        let batch = DownloadBatch(store: store, settings: transfer.settings(context: context))
        try DownloadSession.run(items, batch: batch, output: output, context: context)
    }
}
