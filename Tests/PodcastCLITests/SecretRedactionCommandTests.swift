import Foundation
import PodcastTestSupport
import Testing

/// No command prints a secret a feed's URL carries, whichever code path makes the message: a
/// paged feed reached with `user:secret@` or `?token=s3cr3t`, whose second page is broken (so a
/// warning names the feed), listed, shown, downloaded, subscribed to and updated, with text and
/// `--json` output; and the files podcast writes for the user (`--with info`) hide them too.
/// Only `export` writes the feed's URL as subscribed: that file is the user's own.
@Suite(.timeLimit(.minutes(5))) struct SecretRedactionCommandTests {
    /// A two-page feed at `/<folder>/p1.xml` whose next page (`p2.xml`) answers 404; its first
    /// episode's media is served, its second's is missing. `enclosureQuery` follows each media
    /// URL, and the show notes link to a page with a token of their own.
    private func servePagedFeed(at folder: String, on server: LoopbackServer, enclosureQuery: String) {
        let items = (1...2).map { number in
            """
            <item><title>Episode \(number)</title><guid>\(folder)-\(number)</guid>
            <pubDate>Tue, 10 Nov 2026 0\(number):00:00 GMT</pubDate>
            <description>Notes: https://bonus.example/\(number)?access_token=s3cr3t&amp;part=\(number)</description>
            <enclosure url="ep\(number).mp3\(enclosureQuery)" length="4000" type="audio/mpeg"/></item>
            """
        }
        let feed = """
            <rss xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Private \(folder)</title>
            <atom:link rel="next" href="p2.xml"/>\(items.joined())</channel></rss>
            """
        server.setRoute("/\(folder)/p1.xml", .fixed(body: Data(feed.utf8)))
        server.setRoute("/\(folder)/ep1.mp3", .fixed(body: Data(repeating: 7, count: 4000), headers: [("Content-Type", "audio/mpeg")]))
    }

    /// Runs every command that shows the feed at `feedURL` in a new home, in a narrow terminal's
    /// width (so tables cut their cells), each expected to exit as it does (a download fails: its
    /// second episode's media is missing); returns what each printed (stdout and stderr), by
    /// command, and the home. `firstUpdate` is how the subscription's first update exits: it
    /// fails when the episode it takes is not one the downloads before it tried (their records
    /// are keyed by the address without the credentials given for their run).
    private func outputs(of feedURL: String, firstUpdate: Int32 = 0) async throws -> (outputs: [(String, String)], home: PodcastBinary) {
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("retry-wait = 0.05\n")
        var outputs: [(String, String)] = []
        let proxy = "http://user:secret@127.0.0.1:3128"
        let commands: [(arguments: [String], status: Int32)] = [
            (["episodes", feedURL], 0), (["episodes", feedURL, "--json"], 0), (["show", "1"], 0), (["show", "1", "--json"], 0),
            (["download", feedURL, "all", "--with", "info"], 1), (["download", feedURL, "all", "--with", "info", "--json", "--force"], 1),
            (["status"], 0), (["status", "--json"], 0), (["history", "--json"], 0),
            (["subscribe", feedURL], 0), (["update"], firstUpdate), (["update", "--json"], 0), (["update", "--refresh", "--json"], 0),
            (["subscriptions"], 0), (["subscriptions", "--json"], 0), (["status", "--json"], 0),
            (["episodes", feedURL, "--verbose"], 0), (["config", "--proxy", proxy], 0), (["config", "--json", "--proxy", proxy], 0),
        ]
        for (arguments, status) in commands {
            let result = try await podcast.run(arguments, environment: ["COLUMNS": "60"])
            #expect(result.status == status, "podcast \(arguments.joined(separator: " ")): \(result.stderr)")
            outputs.append((arguments.joined(separator: " "), result.stdout + result.stderr))
        }
        return (outputs, podcast)
    }

    /// Every file under `folder`, read as text.
    private func texts(under folder: String) -> [(String, String)] {
        let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return names.compactMap { name in
            FileManager.default.contents(atPath: folder + "/" + name).map { (name, String(decoding: $0, as: UTF8.self)) }
        }
    }

    private func expectNoSecret(in outputs: [(String, String)], feedURL: String) {
        for (command, output) in outputs {
            // `podcast config` names the setting podcastindex-secret (shown as "***"): a name, not a secret.
            let output = output.replacing("podcastindex-secret", with: "")
            #expect(!output.contains("secret") && !output.contains("s3cr3t"), "podcast \(command) printed a secret of \(feedURL): \(output)")
        }
    }

    @Test func aFeedWithCredentialsInItsURLHasThemPrintedNowhereButInTheExport() async throws {
        let server = try LoopbackServer()
        servePagedFeed(at: "a", on: server, enclosureQuery: "")
        let feedURL = server.url("/a/p1.xml").replacing("http://", with: "http://user:secret@")
        let (outputs, podcast) = try await outputs(of: feedURL, firstUpdate: 1)

        expectNoSecret(in: outputs, feedURL: feedURL)
        let listing = try #require(outputs.first?.1)
        // Given for the run, the credentials leave the address the command shows and keeps
        // (`URLCredentials`), and still reach the server.
        #expect(listing.contains("page 2 of feed http://127.0.0.1:\(server.port)/a/p1.xml"), "episodes: \(listing)")
        #expect(ResumeScenario.requests(server, path: "/a/p1.xml").first?.header("Authorization")?.hasPrefix("Basic ") == true)
        let info = texts(under: podcast.episodesDirectory).filter { $0.0.hasSuffix(".info.json") }
        #expect(!info.isEmpty, "no info.json was written")
        for (name, text) in info { #expect(!text.contains("secret") && text.contains("http://127.0.0.1"), "\(name): \(text)") }

        let export = try await podcast.run(["export"])
        #expect(export.status == 0, "export: \(export.stderr)")
        #expect(export.stdout.contains("xmlUrl=\"\(feedURL)\""), "export: \(export.stdout)")
    }

    @Test func aFeedWithATokenInItsQueryHasItPrintedNowhereButInTheExport() async throws {
        let server = try LoopbackServer()
        servePagedFeed(at: "b", on: server, enclosureQuery: "?token=s3cr3t")
        let feedURL = server.url("/b/p1.xml?token=s3cr3t")
        let (outputs, podcast) = try await outputs(of: feedURL)

        expectNoSecret(in: outputs, feedURL: feedURL)
        let listing = try #require(outputs.first?.1)
        #expect(listing.contains("page 2 of feed http://127.0.0.1:\(server.port)/b/p1.xml?token=***"), "episodes: \(listing)")
        #expect(ResumeScenario.requests(server, path: "/b/p1.xml").first?.query == "token=s3cr3t")
        let info = texts(under: podcast.episodesDirectory).filter { $0.0.hasSuffix(".info.json") }
        #expect(!info.isEmpty, "no info.json was written")
        for (name, text) in info { #expect(!text.contains("s3cr3t") && text.contains("?token=***"), "\(name): \(text)") }

        let export = try await podcast.run(["export"])
        #expect(export.status == 0, "export: \(export.stderr)")
        #expect(export.stdout.contains("xmlUrl=\"\(feedURL)\""), "export: \(export.stdout)")
    }

    /// The background worker's log (its update's warnings, its downloads' errors) and a finished
    /// batch's summary file leave the program too.
    @Test func theWorkersLogAndABatchSummaryHoldNoSecret() async throws {
        let server = try LoopbackServer()
        servePagedFeed(at: "c", on: server, enclosureQuery: "?token=s3cr3t")
        let feedURL = server.url("/c/p1.xml?token=s3cr3t").replacing("http://", with: "http://user:secret@")
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("retry-wait = 0.05\n")
        let guardian = WorkerGuard(podcast)
        defer { withExtendedLifetime(guardian) {} }
        let log = podcast.stateDirectory + "/worker.log"
        let summary = podcast.stateDirectory + "/batches/1.json"

        var outputs: [(String, String)] = []
        for arguments in [["subscribe", feedURL], ["update", "--background"]] {
            let result = try await podcast.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            outputs.append((arguments.joined(separator: " "), result.stdout + result.stderr))
        }
        let updated = try await ResumeScenario.wait {
            !BackgroundScenario.workerRuns(podcast) && (text(at: log)?.contains("update 1: updated") ?? false)
        }
        #expect(updated, "worker log: \(text(at: log) ?? "")")
        let queued = try await podcast.run(["download", feedURL, "all", "--background"])
        #expect(queued.status == 0, "download --background: \(queued.stderr)")
        outputs.append(("download --background", queued.stdout + queued.stderr))
        let settled = try await ResumeScenario.wait { !BackgroundScenario.workerRuns(podcast) && text(at: summary) != nil }
        #expect(settled, "worker log: \(text(at: log) ?? "")")
        let status = try await podcast.run(["status"])
        outputs.append(("status", status.stdout + status.stderr))
        outputs.append(("worker.log", text(at: log) ?? ""))
        outputs.append(("batches/1.json", text(at: summary) ?? ""))

        expectNoSecret(in: outputs, feedURL: feedURL)
        let written = text(at: log) ?? ""
        #expect(written.contains("page 2 of feed http://***@127.0.0.1:\(server.port)/c/p1.xml?token=***"), "worker log: \(written)")
        #expect(text(at: summary)?.contains("ep2.mp3?token=***") == true, "summary: \(text(at: summary) ?? "")")
    }

    /// The file at `path` as text, nil when there is none.
    private func text(at path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }
}
