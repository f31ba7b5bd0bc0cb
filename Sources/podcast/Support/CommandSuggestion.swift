import ArgumentParser
import PodcastKit
import PodcastText

/// A first word that names no command (`podcast serach`, `podcast help nosuch`): a usage error
/// that names the closest command, instead of argument-parser's "unexpected arguments" or, for
/// `help`, the root help and exit 0.
enum CommandSuggestion {
    /// The usage error for `arguments` (without the program name), or nil when they start with a
    /// command, an option or nothing.
    static func unknownCommand(in arguments: [String]) -> UsageError? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        if first == "help" {
            guard let named = arguments.dropFirst().first, !named.hasPrefix("-"), !names.contains(named) else { return nil }
            return error(for: named, help: "podcast --help")
        }
        return names.contains(first) ? nil : error(for: first, help: "podcast --help")
    }

    private static func error(for word: String, help: String) -> UsageError {
        let guess = closest(to: word).map { " (did you mean \($0)?)" } ?? ""
        return UsageError("podcast has no command '\(word)'\(guess); see '\(help)' for the commands")
    }

    /// The visible commands' names (the hidden worker is never suggested, but is still a command).
    private static var names: [String] {
        Podcast.configuration.subcommands.map { $0._commandName } + ["help"]
    }

    /// The visible command nearest to `word`, when it is a likely typo of it (at most 2 edits, or
    /// `word` is the start of exactly one command).
    static func closest(to word: String) -> String? {
        let visible = Podcast.configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
        return EditDistance.closest(to: word, among: visible)
    }
}
