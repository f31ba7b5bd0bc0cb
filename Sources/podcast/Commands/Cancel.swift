import ArgumentParser
import PodcastKit

/// `podcast cancel <selection>|all`: stop downloads and drop them with their partial data.
struct Cancel: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel downloads: stop them and delete their partial data.",
        discussion: """
            <selection> is any mix of 3, 1-5 and 2,4,9 over the numbers of the last listing, like \
            podcast download; all cancels every unfinished download (queued, running, paused or \
            failed), whichever listing it came from. Finished episodes are never touched.

            Examples:
              podcast cancel 3
              podcast cancel all
            """
    )

    @Argument(help: "Which downloads: 3, 1-5, 6-, 2,4,9, or all.")
    var selection: [String]

    @OptionGroup
    var filters: SelectionFilterOptions

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        try Selection.validateArgument(selection)
    }

    func run() throws {
        let context = try CommandContext.current(tolerant: true)
        let store = try context.openStore()
        let keys = try ListingSelection.keys(selection, filter: filters.filter, store: store, verb: "cancel")
        let outcome = try DownloadControl.stop(.cancel, of: keys, store: store)
        // Cancelled episodes settle their batches (and may finish one) even with no worker running.
        BatchCompletion.settle(store: store, context: context)
        StopRendering(verb: "cancelled", outcome: outcome, listed: ListingSelection.listed(in: try store.currentListing.load())).report(json: output.json, console: context.console)
    }
}
