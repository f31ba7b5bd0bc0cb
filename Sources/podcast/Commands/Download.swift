import ArgumentParser
import FoundationEssentials
import PodcastKit

/// `podcast download <selection>...`: fetch episodes of the last listing, several at once.
struct Download: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download episodes (or music previews) of the last listing.",
        discussion: """
            <selection> is any mix of 3, 1-5, 2,4,9 and all, over the numbers of the last \
            `podcast episodes` (or `podcast search --media music`). Episodes already downloaded are \
            skipped; unfinished data never sits under a final name.

            Examples:
              podcast download 1
              podcast download 1-3 7 --concurrency 2
              podcast download all --limit-rate 2M --episodes-dir ~/Podcasts
              podcast download all --background --on-complete 'notify-send "podcasts ready"'
            """
    )

    @Argument(help: "Which episodes: 3, 1-5, 2,4,9, all.")
    var selection: [String]

    @OptionGroup
    var transfer: TransferOptions

    @OptionGroup
    var background: BackgroundOptions

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        try Selection.validateArgument(selection)
    }

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        let items = try selectedItems(store: store)
        if background.background {
            return try BackgroundSubmission.submit(items, transfer: transfer, background: background, output: output, store: store, context: context)
        }
        let batch = DownloadBatch(store: store, settings: transfer.settings(context: context))
        try DownloadSession.run(items, batch: batch, output: output, context: context)
    }

    /// The selected episodes of the last listing; the listing itself is not kept for the downloads.
    private func selectedItems(store: StateStore) throws -> [DownloadItem] {
        guard let listing = try store.currentListing() else {
            throw UsageError("there is no listing to download from; run podcast episodes <feed> first")
        }
        let numbers = try Selection(selection).numbers(inListingOf: listing.items.count)
        return DownloadItem.items(numbers, of: listing)
    }
}
