import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// What subscriptions do to files through the built binary: `--keep` and `unsubscribe
/// --delete-files` delete only what podcast downloaded for that subscription, never a file the
/// user put next to it or another podcast's; `catch-up` leaves the next update nothing to fetch.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionFilesTests {
    /// A file of the user's in `folder`, dated older than every episode (so a rule going by names
    /// or dates alone would pick it first); returns its name.
    private func userFile(in folder: String, bytes: Data) throws -> String {
        let name = "2026-10-01 My own recording.mp3"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try bytes.write(to: URL(filePath: folder + "/" + name))
        return name
    }

    @Test func keepTwoDeletesExactlyPodcastsOwnOldestFiles() async throws {
        let server = try LoopbackServer()
        let kept = ServedShow("Kept Show", slug: "kept", episodes: 2, on: server)
        let other = ServedShow("Other Show", slug: "other", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: kept, ["--first", "2", "--keep", "2"])
        try await SubscriptionScenario.subscribe(podcast, to: other, ["--first", "2"])
        let mine = Data("the user's own bytes".utf8)
        let userName = try userFile(in: kept.folder(in: podcast), bytes: mine)

        #expect(try await podcast.run(["update"]).status == 0)
        #expect(kept.filesOnDisk(in: podcast) == (kept.fileNames(1, 2) + [userName]).sorted())

        kept.publish()
        let first = try await podcast.run(["update"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(kept.filesOnDisk(in: podcast) == (kept.fileNames(2, 3) + [userName]).sorted(), "episode 1 went")
        #expect(first.stderrLines.filter { $0.hasPrefix("deleted ") }.count == 1, "\(first.stderr)")

        kept.publish(2)
        let second = try await podcast.run(["update"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(kept.filesOnDisk(in: podcast) == (kept.fileNames(4, 5) + [userName]).sorted(), "episodes 2 and 3 went")
        #expect(kept.stored(4, in: podcast) == kept.episode(4).body)
        #expect(kept.stored(5, in: podcast) == kept.episode(5).body)
        #expect(SubscriptionScenario.contents(kept.folder(in: podcast) + "/" + userName) == mine)
        #expect(other.filesOnDisk(in: podcast) == other.fileNames(1, 2), "another podcast's files are not this keep's")
        #expect(other.stored(1, in: podcast) == other.episode(1).body)
        #expect(kept.mediaRequests.sorted() == kept.paths(1, 2, 3, 4, 5).sorted(), "a deleted file is not downloaded again")
    }

    @Test func aSubscriptionsEpisodesDirectoryHoldsItsFiles() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Elsewhere Show", slug: "elsewhere", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        let elsewhere = podcast.home.path("Audiobooks")
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--episodes-dir", elsewhere])
        #expect(try await SubscriptionScenario.subscriptions(podcast)[show.title]?["episodes_dir"] as? String == elsewhere)

        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.filesOnDisk(in: podcast, episodesDirectory: elsewhere) == show.fileNames(2))
        #expect(show.stored(2, in: podcast, episodesDirectory: elsewhere) == show.episode(2).body)
        #expect(show.filesOnDisk(in: podcast).isEmpty, "nothing in the default Episodes directory")
    }

    @Test
    func aSubscriptionsNameTemplateNamesItsFiles() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Templated Show", slug: "templated", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--name-template", "{podcast}/{title}.{ext}"])

        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.filesOnDisk(in: podcast) == ["Episode 2.mp3"])
        #expect(SubscriptionScenario.contents(show.folder(in: podcast) + "/Episode 2.mp3") == show.episode(2).body)
    }

    @Test func catchUpLeavesTheNextUpdateNothingToDownload() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Caught Up", slug: "caught", episodes: 3, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "2"])

        let caughtUp = try await podcast.run(["catch-up"])
        #expect(caughtUp.status == 0, "\(caughtUp.stderr)")
        #expect(caughtUp.stderr.contains("2 new episodes"), "\(caughtUp.stderr)")
        #expect(try await SubscriptionScenario.subscriptions(podcast)[show.title]?["new"] as? Int == 0)

        let update = try await podcast.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(ResumeScenario.results(update.stdout).isEmpty, "\(update.stdout)")
        #expect(show.mediaRequests.isEmpty)
        #expect(show.filesOnDisk(in: podcast).isEmpty)

        // Only what was known is caught up: an episode published later is new.
        show.publish()
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.mediaRequests == show.paths(4))
    }

    @Test func unsubscribeDeleteFilesDeletesOnlyPodcastsOwnFiles() async throws {
        let server = try LoopbackServer()
        let leaving = ServedShow("Leaving Show", slug: "leaving", episodes: 2, on: server)
        let staying = ServedShow("Staying Show", slug: "staying", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: leaving, ["--first", "2"])
        try await SubscriptionScenario.subscribe(podcast, to: staying)
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(leaving.filesOnDisk(in: podcast) == leaving.fileNames(1, 2))
        let mine = Data("kept by the user".utf8)
        let userName = try userFile(in: leaving.folder(in: podcast), bytes: mine)

        let unsubscribed = try await podcast.run(["unsubscribe", leaving.title, "--delete-files"])
        #expect(unsubscribed.status == 0, "\(unsubscribed.stderr)")
        #expect(unsubscribed.stderr.contains("deleted 2 files"), "\(unsubscribed.stderr)")
        #expect(leaving.filesOnDisk(in: podcast) == [userName])
        #expect(SubscriptionScenario.contents(leaving.folder(in: podcast) + "/" + userName) == mine)
        #expect(staying.filesOnDisk(in: podcast) == staying.fileNames(1))
        #expect(staying.stored(1, in: podcast) == staying.episode(1).body)
        #expect(Array(try await SubscriptionScenario.subscriptions(podcast).keys) == [staying.title])
    }

    @Test func unsubscribeWithoutDeleteFilesLeavesEveryFile() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Left Alone", slug: "alone", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "2"])
        #expect(try await podcast.run(["update"]).status == 0)

        let unsubscribed = try await podcast.run(["unsubscribe", "1"])
        #expect(unsubscribed.status == 0, "\(unsubscribed.stderr)")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1, 2))
        #expect(try await SubscriptionScenario.subscriptions(podcast).isEmpty)
        let feedRequests = show.feedRequests.count
        #expect(try await podcast.run(["update"]).status == 0)
        #expect(show.feedRequests.count == feedRequests, "an unsubscribed feed is not fetched")
    }
}
