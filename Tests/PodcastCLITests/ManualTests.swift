import Foundation
import PodcastTestSupport
import Testing

/// The man page in `man/podcast.1` and what `make install` puts under PREFIX.
@Suite(.timeLimit(.minutes(5))) struct ManualTests {
    /// The package's root, where `man/` and the Makefile are.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static var page: String { root.appendingPathComponent("man/podcast.1").path }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/man"), "setup.sh installs man-db"))
    func theManPageRendersWithoutWarnings() async throws {
        let rendered = await (try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/man"), ["-P", "cat", "-l", Self.page],
            environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "80", "LANG": "C.UTF-8"])).finish()
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
        #expect(rendered.stdout.hasPrefix("PODCAST(1)"))
        #expect(rendered.stdout.contains("podcast — Find podcasts, list their episodes and download them."))
    }

    /// Regenerate with `make man` when this fails: the page must name every command and option
    /// the binary shows in its help, and no other (not the hidden `worker`).
    @Test func theManPageIsUpToDateWithTheCommandTree() async throws {
        let dump = try await PodcastBinary().run(["--experimental-dump-help"])
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let root = try #require(tree["command"] as? [String: Any])
        let commands = try #require(root["subcommands"] as? [[String: Any]]).filter { $0["shouldDisplay"] as? Bool != false }
        #expect(commands.count >= 20)
        let text = try String(contentsOfFile: Self.page, encoding: .utf8)

        let paged = Set(text.split(separator: "\n").compactMap { line in line.hasPrefix(".It Em ") ? String(line.dropFirst(7)) : nil })
        #expect(paged == Set(commands.compactMap { $0["commandName"] as? String }))
        var options: Set<String> = ["version", "help"]
        for command in commands {
            if let abstract = command["abstract"] as? String { #expect(text.contains(abstract), "\(abstract)") }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    options.insert(name["name"] as? String ?? "")
                }
                if let abstract = argument["abstract"] as? String { #expect(text.contains(abstract), "\(abstract)") }
            }
        }
        let flags = text.matches(of: #/(?:Fl |, )-([a-z][a-z-]*)/#).map { String($0.output.1) }
        #expect(Set(flags) == options)
    }

    @Test func installPutsTheManPageAndCompletionsUnderPrefix() async throws {
        let destination = try TemporaryDirectory(prefix: "install")
        let make = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/make"),
            ["-C", Self.root.path, "install-files", "PODCAST=\(builtExecutable(named: "podcast").path)", "DESTDIR=\(destination.path)", "PREFIX=/opt/pc"],
            environment: ["PATH": "/usr/bin:/bin"])
        let result = await make.finish(within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let share = destination.path + "/opt/pc/share"
        #expect(FileManager.default.contentsEqual(atPath: share + "/man/man1/podcast.1", andPath: Self.page))
        let bash = try String(contentsOfFile: share + "/bash-completion/completions/podcast", encoding: .utf8)
        #expect(bash.contains("complete") && bash.contains("history") && bash.contains("--max-per-host"))
        let zsh = try String(contentsOfFile: share + "/zsh/site-functions/_podcast", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef podcast"))
        let fish = try String(contentsOfFile: share + "/fish/vendor_completions.d/podcast.fish", encoding: .utf8)
        #expect(fish.contains("complete -c 'podcast'") && fish.contains("'max-per-host'"))
    }
}
