import ArgumentParser
import PodcastKit

/// `podcast pause`: stop every queued or running download, wherever it runs, keeping its resume data.
struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause every queued or running download, keeping its resume data.",
        discussion: """
            Works on the background worker's downloads and on a podcast download running in \
            another terminal: that process stops them within about a second and records them as \
            paused. podcast resume continues them (in the foreground, or with --background).

            Examples:
              podcast pause
              podcast resume --background
            """
    )

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        let outcome = try DownloadControl.stop(.pause, of: nil, store: store)
        StopRendering(verb: "paused", outcome: outcome).report(json: output.json, console: context.console)
    }
}
