import Foundation
import PodcastTestSupport

/// The built `podcast` binary run as a user would, in a home of its own.
final class PodcastBinary: Sendable {
    /// The directory standing in for the user's home; PODCAST_HOME is `<home>/state`.
    let home: TemporaryDirectory
    /// Extra environment for every run (PODCAST_ITUNES_URL, COLUMNS, …).
    let environment: [String: String]

    /// A fresh home; `itunes` (when given) becomes PODCAST_ITUNES_URL.
    init(itunes: LoopbackServer? = nil, environment: [String: String] = [:]) throws {
        home = try TemporaryDirectory(prefix: "podcast-cli")
        try FileManager.default.createDirectory(atPath: home.path(".config/podcast"), withIntermediateDirectories: true)
        var environment = environment
        if let itunes { environment["PODCAST_ITUNES_URL"] = environment["PODCAST_ITUNES_URL"] ?? itunes.baseURL }
        self.environment = environment
    }

    /// PODCAST_HOME of every run.
    var stateDirectory: String { home.path("state") }

    /// The configuration file every run reads, where XDG_CONFIG_HOME puts it (absent until a
    /// test writes it; a missing file there is no error, unlike one PODCAST_CONFIG names).
    var configFile: String { home.path(".config/podcast/config.toml") }

    /// Runs `podcast arguments…` to completion (bounded) with a clean environment.
    func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> ChildProcess.Result {
        var environment = [
            "PATH": "/usr/bin:/bin",
            "HOME": home.path,
            "PODCAST_HOME": stateDirectory,
            "XDG_CONFIG_HOME": home.path(".config"),
        ]
        environment.merge(self.environment) { $1 }
        environment.merge(extra) { $1 }
        let process = try ChildProcess(builtExecutable(named: "podcast"), arguments, environment: environment)
        return await process.finish(within: .seconds(60))
    }
}
