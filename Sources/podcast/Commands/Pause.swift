import ArgumentParser
import PodcastKit

/// `podcast pause [<selection>]`: stop queued or running downloads, wherever they run, keeping
/// their resume data.
struct Pause: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause queued or running downloads (all of them, or those selected), keeping their resume data.",
        discussion: """
            Works on the background worker's downloads and on a podcast download running in \
            another terminal: that process stops them within about a second and records them as \
            paused. podcast resume continues them (in the foreground, or with --background). \
            <selection> takes the numbers of the last listing, as podcast status shows them in its # \
            column; without one, every download is paused.

            Examples:
              podcast pause
              podcast pause 3 5-7
              podcast resume --background
            """
    )

    @Argument(help: "Which downloads: 3, 1-5, 6-, 2,4,9, new, or all (the default).")
    var selection: [String] = []

    @OptionGroup
    var filters: SelectionFilterOptions

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if !selection.isEmpty { try Selection.validateArgument(selection) }
    }

    func run() throws {
        let context = try CommandContext.current(tolerant: true)
        let store = try context.openStore()
        let keys = try ListingSelection.keys(selection, filter: filters.filter, store: store, verb: "pause")
        let outcome = try DownloadControl.stop(.pause, of: keys, store: store)
        StopRendering(verb: "paused", outcome: outcome, listed: ListingSelection.listed(in: try store.currentListing.load())).report(json: output.json, console: context.console)
    }
}
