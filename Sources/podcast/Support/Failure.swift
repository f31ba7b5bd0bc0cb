import ArgumentParser
import PodcastKit

/// The one place that turns an error into its message and the contract's exit code.
enum Failure {
    /// 1: an operation failed (network, feed, API, download).
    static let operationFailed: Int32 = 1
    /// 64: bad usage (an option, a selection, the environment).
    static let usage: Int32 = 64

    /// Reports `error` on stderr (or, for help and version requests, prints them on stdout) and
    /// returns the exit code.
    static func report(_ error: any Error, arguments: [String]) -> Int32 {
        switch error {
        case let error as UsageError:
            Console.write("error: \(error)\n", to: 2)
            return usage
        case let error as ConfigurationError:
            Console.write("error: \(error)\n", to: 2)
            return usage
        case let error as ExitCode:
            return error.rawValue
        case is SearchError, is HTTPError, is StoreError:
            Console.write("error: \(error)\n", to: 2)
            return operationFailed
        default:
            return reportArgumentError(error, arguments: arguments)
        }
    }

    /// Help, version and parse errors from swift-argument-parser: its own text for the first two,
    /// one line with a pointer to `--help` for the last.
    private static func reportArgumentError(_ error: any Error, arguments: [String]) -> Int32 {
        let code = Podcast.exitCode(for: error)
        if code == .success {
            Console.write(Podcast.fullMessage(for: error) + "\n", to: 1)
            return code.rawValue
        }
        let message = Podcast.message(for: error).singleLine()
        let subcommand = arguments.dropFirst().first { name in
            Podcast.configuration.subcommands.contains { $0._commandName == name }
        }
        let help = subcommand.map { "podcast \($0) --help" } ?? "podcast --help"
        Console.write("error: \(message); see '\(help)'\n", to: 2)
        return code == .validationFailure ? usage : code.rawValue
    }
}
