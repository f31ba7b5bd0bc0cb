import ArgumentParser
import PodcastKit

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
        let starting = visible.filter { $0.hasPrefix(word.lowercased()) }
        if starting.count == 1 { return starting[0] }
        let scored = visible.map { ($0, distance(word.lowercased(), $0)) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
