import ArgumentParser
import PodcastKit

/// `podcast config`: every setting a command would use, each with where it comes from.
struct Config: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the effective settings, each with where it comes from: default, file:line, environment or flag.",
        discussion: """
            The configuration file is $PODCAST_CONFIG (/dev/null for none), else \
            $XDG_CONFIG_HOME/podcast/config.toml, else ~/.config/podcast/config.toml. It is TOML; \
            every setting may stand at the top or in its section. A flag wins over the environment, \
            which wins over the file, which wins over the default. Give download options to see \
            what they change. The output is itself a valid configuration file; header values are \
            never shown.

            \(Self.settingsList)

            Examples:
              podcast config
              podcast config --concurrency 5 --limit-rate 1M
              podcast config --json
            """
    )

    /// Every setting of the schema by section, with what it takes, its default and its flag.
    private static var settingsList: String {
        SettingSection.allCases.map { section in
            "[\(section.rawValue)]\n" + SettingsSchema.settings(in: section).map { setting in
                let flag = setting.flag.map { "; \($0)" } ?? ""
                let environment = setting.environment.map { "; $\($0)" } ?? ""
                return "  \(setting.key): \(setting.summary) Takes \(setting.takes) (default \(setting.defaultText)\(flag)\(environment))."
            }.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    @OptionGroup
    var transfer: TransferOptions

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        let context = try CommandContext.current()
        let rendering = ConfigRendering(resolved: try context.settings(transfer.given), file: context.paths.configFile)
        if output.json {
            context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
        } else {
            for line in rendering.lines { context.console.print(line) }
        }
    }
}
