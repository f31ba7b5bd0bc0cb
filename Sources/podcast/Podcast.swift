import ArgumentParser
import FoundationEssentials
import Glibc
import PodcastKit
import PodcastPlatform

@main
struct Podcast: ParsableCommand {
    // Every command names itself: ArgumentParser would otherwise derive each name from its type's
    // name at every start, through the runtime's type-name demangling, about a millisecond in all.
    static let configuration = CommandConfiguration(
        commandName: "podcast",
        abstract: "Find podcasts, list their episodes and download them.",
        discussion: """
            State lives in $PODCAST_HOME (default: $XDG_DATA_HOME/podcast or ~/.local/share/podcast); \
            episodes go to $PODCAST_HOME/Episodes unless PODCAST_EPISODES_DIR says otherwise. \
            PODCAST_ITUNES_URL points searches at another iTunes-compatible server; PODCAST_PODCASTINDEX_URL \
            and PODCAST_FYYD_URL do the same for search --directory podcastindex and fyyd.

            Exit codes: 0 success, 1 an operation failed, 64 bad usage, 130 interrupted.
            """,
        version: "podcast \(podcastVersion)",
        subcommands: [
            Search.self, Episodes.self, Show.self, Download.self, Resume.self, Status.self, History.self, Pause.self, Cancel.self,
            Subscribe.self, Subscriptions.self, Update.self, CatchUp.self, Unsubscribe.self, Import.self, Export.self,
            Delete.self, Verify.self, Clean.self, Config.self, Worker.self,
        ]
    )

    /// Parses and runs the command, and exits with the contract's code.
    static func main() {
        // libcurl writes to sockets that the other end may close; that must be an error, not death.
        signal(SIGPIPE, SIG_IGN)
        // A file-size limit (ulimit -f) must fail a write with EFBIG, which stops the downloads
        // cleanly, instead of killing the process mid-write.
        signal(SIGXFSZ, SIG_IGN)
        Console.guardStandardDescriptors()
        let arguments = CommandLine.arguments
        ProcessArguments.hideSecrets()
        do {
            if let unknown = CommandSuggestion.unknownCommand(in: Array(arguments.dropFirst())) { throw unknown }
            var command = try parseAsRoot(Array(arguments.dropFirst()))
            if let configured = command as? any OutputConfigured {
                OutputStyle.apply(configured.output, environment: ProcessInfo.processInfo.environment)
            }
            try command.run()
            Glibc.exit(ExitStatus.outputChecked(0))
        } catch {
            Glibc.exit(ExitStatus.outputChecked(ExitStatus.report(error, arguments: arguments)))
        }
    }
}
