import ArgumentParser
import Glibc
import PodcastHTTP
import PodcastKit
import PodcastText

/// The one place that turns an error into its message and the contract's exit code.
enum ExitStatus {
    /// 1: an operation failed (network, feed, API, download).
    static let operationFailed: Int32 = 1
    /// 64: bad usage (an option, a selection, the environment).
    static let usage: Int32 = 64
    /// 130: interrupted by Ctrl-C or SIGTERM, resume data saved.
    static let interrupted: Int32 = 130

    /// Reports `error` on stderr (or, for help and version requests, prints them on stdout) and
    /// returns the exit code.
    static func report(_ error: any Error, arguments: [String]) -> Int32 {
        switch error {
        case let error as UsageError:
            return fail("\(error)", code: usage)
        case let error as ConfigurationError:
            return fail("\(error)", code: usage)
        case let error as ExitCode:
            return error.rawValue
        case is SearchError, is HTTPError, is StoreError, is FeedError, is OPMLError, is EpisodesDirectoryError:
            return fail("\(error)", code: operationFailed)
        default:
            return reportArgumentError(error, arguments: arguments)
        }
    }

    /// `message; advice`, or `message. See advice` when the message already ends a sentence
    /// (argument-parser's "Did you mean '--limit'?"), so no line reads `?;` or `.;`.
    static func joined(_ message: String, _ advice: String) -> String {
        guard let last = message.last, ".?!".contains(last) else { return message + "; " + advice }
        return message + " " + advice.prefix(1).uppercased() + advice.dropFirst()
    }

    private static func fail(_ message: String, code: Int32) -> Int32 {
        Console.write(Console.errorLine(message.singleLine()), to: STDERR_FILENO)
        return code
    }

    /// `code`, unless writing stdout failed (a full disk, a closed descriptor): then the output
    /// is incomplete, which is said, and the run fails (1) whatever else went well.
    static func outputChecked(_ code: Int32) -> Int32 {
        guard let failure = Console.outputFailure else { return code }
        Console.write(Console.errorLine("writing output: \(failure.reason); the output is incomplete: check where stdout goes"), to: STDERR_FILENO)
        return code == 0 ? operationFailed : code
    }

    /// Help, version and parse errors from swift-argument-parser: its own text for the first two,
    /// one line with a pointer to `--help` for parse errors; anything else is a failure.
    private static func reportArgumentError(_ error: any Error, arguments: [String]) -> Int32 {
        let code = Podcast.exitCode(for: error)
        if code == .success {
            Console.write(Podcast.fullMessage(for: error) + "\n", to: STDOUT_FILENO)
            return code.rawValue
        }
        guard code == .validationFailure else {
            return fail(Podcast.message(for: error), code: operationFailed)
        }
        let subcommand = arguments.dropFirst().first { name in
            Podcast.configuration.subcommands.contains { $0._commandName == name }
        }
        let help = subcommand.map { "podcast \($0) --help" } ?? "podcast --help"
        return fail(joined(Podcast.message(for: error), "see '\(help)'"), code: usage)
    }
}
