import ArgumentParser
import PodcastKit

/// `podcast config`: the settings a download would use, each with where it comes from.
struct Config: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the effective settings, each with where it comes from: default, file:line, environment or flag.",
        discussion: """
            The configuration file is $PODCAST_CONFIG, else $XDG_CONFIG_HOME/podcast/config.toml, \\
            else ~/.config/podcast/config.toml (TOML; every setting may also stand in its section: \\
            [search], [download] or [http]). A flag wins over the environment, which wins over the \\
            file, which wins over the default. Give download options to see what they change. The \\
            output is itself a valid configuration file; header values are never shown.

            Examples:
              podcast config
              podcast config --concurrency 5 --limit-rate 1M
              podcast config --json
            """
    )

    @OptionGroup
    var transfer: TransferOptions

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        let rendering = ConfigRendering(settings: EffectiveSettings(transfer: transfer, context: context).list, file: context.paths.configFile)
        if output.json {
            context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
        } else {
            for line in rendering.lines { context.console.print(line) }
        }
    }
}
