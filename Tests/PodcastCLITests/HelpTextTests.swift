import Foundation
import PodcastTestSupport
import Testing

/// Every command's `--help` as a user reads and copies it: the command tree is taken from the
/// binary itself, so a command added later is checked too.
@Suite(.timeLimit(.minutes(5))) struct HelpTextTests {
    /// `podcast` and each of its commands' names (the hidden `worker` too: its help is still shown).
    private static func commands(_ podcast: PodcastBinary) async throws -> [[String]] {
        let dump = try await podcast.run(["--experimental-dump-help"])
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let root = try #require(tree["command"] as? [String: Any])
        let names = try #require(root["subcommands"] as? [[String: Any]]).compactMap { $0["commandName"] as? String }
        #expect(names.count >= 20)
        return [[]] + names.map { [$0] }
    }

    private static func help(_ podcast: PodcastBinary, _ command: [String], columns: Int) async throws -> String {
        let result = try await podcast.run(command + ["--help"], environment: ["COLUMNS": "\(columns)"])
        #expect(result.status == 0, "podcast \(command.joined()) --help: \(result.stderr)")
        return result.stdout
    }

    /// A `\` at a line's end, or before a space, is a line continuation of the source that leaked
    /// into the text (`\\` where `\` was meant), not something a user should read.
    @Test func noHelpShowsAStrayBackslash() async throws {
        let podcast = try PodcastBinary()
        for command in try await Self.commands(podcast) {
            for columns in [80, 300] {
                let text = try await Self.help(podcast, command, columns: columns)
                let stray = text.split(separator: "\n").filter { $0.hasSuffix("\\") || $0.contains("\\ ") }
                #expect(stray.isEmpty, "podcast \(command.joined()) --help at \(columns) columns: \(stray)")
            }
        }
    }

    /// An example is a command to copy: at 80 columns, and at 60, each one stays on its line
    /// whole (its quotes balanced), exactly as in a help wide enough never to wrap.
    @Test func examplesAreNeverWrapped() async throws {
        let podcast = try PodcastBinary()
        for command in try await Self.commands(podcast) {
            let wide = try await Self.help(podcast, command, columns: 1000)
            let examples = wide.split(separator: "\n").filter { $0.hasPrefix("  podcast ") }
            for columns in [80, 60] {
                let lines = try await Self.help(podcast, command, columns: columns).split(separator: "\n")
                for line in lines where line.hasPrefix("  podcast ") {
                    #expect(line.count { $0 == "'" } % 2 == 0 && line.count { $0 == "\"" } % 2 == 0, "at \(columns) columns: \(line)")
                }
                let wrapped = examples.filter { !lines.contains($0) }
                #expect(wrapped.isEmpty, "podcast \(command.joined()) --help at \(columns) columns wraps: \(wrapped)")
            }
        }
    }
}

/// The shell completions `make install` installs complete what each argument takes.
@Suite(.timeLimit(.minutes(5))) struct CompletionScriptTests {
    /// The body of the bash function `name` in `script`, up to the next function.
    private static func function(_ name: String, in script: String) throws -> Substring {
        let start = try #require(script.range(of: "\n\(name)() {\n"), "no \(name) in the bash script")
        let rest = script[start.upperBound...]
        return rest[..<(rest.range(of: "\n}\n")?.lowerBound ?? rest.endIndex)]
    }

    /// The lines of the `case` arm for `word` in `body`, up to its `;;`.
    private static func arm(_ word: String, in body: Substring) -> Substring? {
        guard let start = body.range(of: "'\(word)')\n") else { return nil }
        let rest = body[start.upperBound...]
        return rest[..<(rest.range(of: ";;")?.lowerBound ?? rest.endIndex)]
    }

    @Test func bashCompletesDirectoriesForEveryEpisodesDirOption() async throws {
        let script = try await PodcastBinary().run(["--generate-completion-script", "bash"]).stdout
        let functions = script.matches(of: #/\n(_podcast_[a-z_]+)\(\) \{\n/#).map { String($0.output.1) }
        var checked = 0
        for name in functions {
            guard let arm = Self.arm("--episodes-dir", in: try Self.function(name, in: script)) else { continue }
            #expect(arm.contains("__podcast_add_completions -d"), "\(name): --episodes-dir completes \(arm)")
            checked += 1
        }
        // download, resume, subscribe, update, import, clean, config.
        #expect(checked >= 7)
    }

    @Test func bashCompletesOPMLFilesForImport() async throws {
        let script = try await PodcastBinary().run(["--generate-completion-script", "bash"]).stdout
        let body = try Self.function("_podcast_import", in: script)
        #expect(body.contains("__podcast_add_completions -o plusdirs -fX '!*.@(opml|xml)'"), "\(body)")
    }
}
