import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast delete` applies every filter it is given together (`--match`, `--since`, `--until`,
/// `--latest`, `--older-than`), with or without selection words; `--dry-run` deletes nothing;
/// at a terminal it asks before deleting more than one episode. Through the built binary.
@Suite(.timeLimit(.minutes(5))) struct DeleteFilterTests {
    private static let bodies = (1...3).map { ResumeScenario.media(seed: UInt64(190 + $0), size: 40_000 + $0) }
    private static let titles = ["One", "Two", "Three"]

    /// A home that downloaded One (oldest) to Three (newest), published 2026-11-02 to -04.
    private static func downloadedHome(on server: LoopbackServer) async throws -> PodcastBinary {
        LibraryScenario.serveDaily(bodies, titles: titles, guidPrefix: "d", on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let downloaded = try await podcast.run(["download", "all"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        return podcast
    }

    private static func path(_ podcast: PodcastBinary, _ index: Int) -> String {
        podcast.episodesDirectory + "/\(LibraryScenario.podcastTitle)/2026-11-0\(index + 2) \(titles[index]).mp3"
    }

    /// Which of One, Two, Three still have their downloaded bytes on disk.
    private static func kept(_ podcast: PodcastBinary) -> [String] {
        titles.indices.filter { FileManager.default.contents(atPath: path(podcast, $0)) == bodies[$0] }.map { titles[$0] }
    }

    private static func deletedTitles(_ stdout: String, key: String = "deleted") -> [String] {
        let document = SubscriptionScenario.document(stdout)
        return (document[key] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }

    @Test func olderThanWithAMatchThatMatchesNothingDeletesNothing() async throws {
        let server = try LoopbackServer()
        let podcast = try await Self.downloadedHome(on: server)
        let result = try await podcast.run(["delete", "--older-than", "0", "--match", "nothing-matches", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.deletedTitles(result.stdout) == [], "\(result.stdout)")
        #expect(Self.kept(podcast) == Self.titles)
    }

    @Test func olderThanWithUntilAndMatchDeletesOnlyWhatPassesEveryFilter() async throws {
        let server = try LoopbackServer()
        let podcast = try await Self.downloadedHome(on: server)
        let result = try await podcast.run(["delete", "--older-than", "0", "--until", "2026-11-03", "--match", "^t", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.deletedTitles(result.stdout) == ["Two"], "\(result.stdout)")
        #expect(Self.kept(podcast) == ["One", "Three"])
    }

    @Test func latestIsTheNewestOfWhatTheOtherFiltersLeave() async throws {
        let server = try LoopbackServer()
        let podcast = try await Self.downloadedHome(on: server)
        let result = try await podcast.run(["delete", "--older-than", "0", "--match", "o", "--latest", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.deletedTitles(result.stdout) == ["Two"], "Two is the newest title with an o: \(result.stdout)")
        #expect(Self.kept(podcast) == ["One", "Three"])
    }

    @Test func filtersWithoutSelectionWordsApplyToEveryDownloadedEpisode() async throws {
        let server = try LoopbackServer()
        let podcast = try await Self.downloadedHome(on: server)
        let result = try await podcast.run(["delete", "--since", "2026-11-03", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(Self.deletedTitles(result.stdout)) == ["Two", "Three"], "\(result.stdout)")
        #expect(Self.kept(podcast) == ["One"])
    }

    @Test func selectionWordsAndFiltersTogether() async throws {
        let server = try LoopbackServer()
        let podcast = try await Self.downloadedHome(on: server)
        // The listing numbers Three 1, Two 2, One 3.
        let result = try await podcast.run(["delete", "1-2", "--older-than", "0", "--match", "nothing", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.deletedTitles(result.stdout) == [])
        #expect(Self.kept(podcast) == Self.titles)
    }

    @Test func dryRunListsWhatWouldGoAndDeletesNothing() async throws {
        let server = try LoopbackServer()
        let podcast = try await Self.downloadedHome(on: server)
        let json = try await podcast.run(["delete", "--older-than", "0", "--dry-run", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(Self.deletedTitles(json.stdout, key: "would_delete") == ["Three", "Two", "One"], "newest first: \(json.stdout)")
        #expect(Self.deletedTitles(json.stdout) == [])
        #expect(Self.kept(podcast) == Self.titles)

        let text = try await podcast.run(["delete", "--older-than", "0", "--match", "one", "--dry-run"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stderrLines.contains("would delete \(Self.path(podcast, 0))"), "\(text.stderr)")
        #expect(text.stderrLines.last?.hasPrefix("would delete 1 episode (") == true, "\(text.stderr)")
        #expect(text.stderrLines.last?.hasSuffix("); nothing was deleted") == true, "\(text.stderr)")
        #expect(Self.kept(podcast) == Self.titles)
    }

    @Test func noEpisodesAndNoFiltersIsAUsageError() async throws {
        let podcast = try PodcastBinary()
        let result = try await podcast.run(["delete"])
        #expect(result.status == 64)
        #expect(result.stderrLines.count == 1 || result.stderr.contains("--older-than"), "\(result.stderr)")
    }

    @Test func atATerminalItAsksBeforeDeletingMoreThanOneAndNoKeepsEverything() async throws {
        let server = try LoopbackServer()
        let podcast = try await Self.downloadedHome(on: server)
        let session = try TerminalScenario.start(podcast, ["delete", "--older-than", "0"], rows: 24, columns: 120)
        let asked = await session.wait(upTo: .seconds(30)) { $0.contains("[y/N]") }
        #expect(asked, "\(session.text)")
        session.send("n\n")
        #expect(await session.finish() == 0, "\(session.text)")
        #expect(session.text.contains("delete 3 episodes"), "\(session.text)")
        #expect(Self.kept(podcast) == Self.titles)

        let yes = try TerminalScenario.start(podcast, ["delete", "--older-than", "0", "--yes"], rows: 24, columns: 120)
        #expect(await yes.finish() == 0, "\(yes.text)")
        #expect(!yes.text.contains("[y/N]"))
        #expect(Self.kept(podcast) == [])
    }
}
