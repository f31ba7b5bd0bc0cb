/// Where podcast keeps its state and files, resolved from the environment as the contract says.
public struct PodcastPaths: Sendable, Equatable {
    /// The state directory: `PODCAST_HOME`, else `$XDG_DATA_HOME/podcast`, else `~/.local/share/podcast`.
    public var home: String
    /// Where finished episodes go: `PODCAST_EPISODES_DIR`, else `<home>/Episodes`.
    public var episodesDirectory: String
    /// The optional configuration file: `PODCAST_CONFIG`, else `$XDG_CONFIG_HOME/podcast/config.toml`,
    /// else `~/.config/podcast/config.toml`.
    public var configFile: String

    /// The SQLite state store inside `home`.
    public var database: String { home + "/state.sqlite" }

    /// Resolves the paths from environment variables (pass `ProcessInfo.processInfo.environment`).
    public init(environment: [String: String]) {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        let userHome = value("HOME") ?? "/"
        let home = value("PODCAST_HOME")
            ?? (value("XDG_DATA_HOME").map { $0 + "/podcast" } ?? userHome + "/.local/share/podcast")
        self.home = home
        self.episodesDirectory = value("PODCAST_EPISODES_DIR") ?? home + "/Episodes"
        self.configFile = value("PODCAST_CONFIG")
            ?? (value("XDG_CONFIG_HOME").map { $0 + "/podcast/config.toml" } ?? userHome + "/.config/podcast/config.toml")
    }

    /// Creates paths directly, for tests.
    public init(home: String, episodesDirectory: String? = nil, configFile: String? = nil) {
        self.home = home
        self.episodesDirectory = episodesDirectory ?? home + "/Episodes"
        self.configFile = configFile ?? home + "/config.toml"
    }
}
