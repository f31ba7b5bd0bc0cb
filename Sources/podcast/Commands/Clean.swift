import ArgumentParser
import PodcastKit
import PodcastText

/// `podcast clean`: remove what no download can use any more, and say what and how much.
struct Clean: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove orphaned partial files and the records of files that are gone.",
        discussion: """
            Removes partial files no download record names (left by a killed process or a reset \
            state store), temporary files a killed process left beside companion files and \
            playlists, and the records of finished files and companion files that are no longer \
            there. A partial file that podcast resume can continue is kept. It never removes a \
            finished episode, a companion file or anything podcast did not make.

            Examples:
              podcast clean
              podcast clean --episodes-dir /media/stick/Podcasts
            """
    )

    @Option(help: "An Episodes directory to clean besides the default one and those the records name.", completion: .directory)
    var episodesDir: String?

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        let directories = [try context.settings(episodesDir.map { [GivenSetting("episodes-dir", text: $0)] } ?? []).settings.episodesDirectory].compactMap { $0 }
            + (try store.subscriptions.all().compactMap(\.settings.episodesDirectory))
        let outcome = try LibraryCleaning(store: store).run(episodesDirectories: directories)
        for file in outcome.files { context.console.message("removed \(file)") }
        for record in outcome.records { context.console.message("forgot \(record): its file is gone") }
        if output.json {
            context.console.print(JSONValue.object([
                ("removed", .array(outcome.files.map { .string($0) })), ("bytes", .int(Int(outcome.bytes))),
                ("forgotten", .array(outcome.records.map { .string($0) })),
            ]).serialized(pretty: context.console.stdoutIsTerminal))
        }
        context.console.message("removed \(Plural.count(outcome.files.count, "orphaned file")) (\(ByteCount.text(outcome.bytes))) "
            + "and \(Plural.count(outcome.records.count, "record")) of files that are gone")
    }
}
