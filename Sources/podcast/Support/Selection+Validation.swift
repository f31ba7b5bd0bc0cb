import ArgumentParser
import PodcastKit

extension Selection {
    /// Checks a `<selection>` argument while the command line is parsed, so a bad one is a usage
    /// error (exit 64) before anything runs.
    static func validateArgument(_ words: [String]) throws {
        do {
            _ = try Selection(words)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
