import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// The red team's reproductions through the built binary: each test is one way podcast still
/// deletes a file it did not write, or one that is not the reason's own. Each fails on the code it
/// was written against.
@Suite(.timeLimit(.minutes(5))) struct OwnershipRedTeamTests {
    // MARK: R1. A symbolic link swapped in for a podcast folder

    /// A podcast folder replaced by a symbolic link to another folder (the user's archive of
    /// copies): the archive's copy has the same bytes, but it is not the file podcast placed (its
    /// inode differs), so `delete` leaves it.
    @Test func deleteDoesNotFollowASymbolicLinkSwappedInForThePodcastFolder() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Linked", slug: "linked", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["episodes", show.feedURL]).status == 0)
        let downloaded = try await podcast.run(["download", "all"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        let folder = show.folder(in: podcast)
        #expect(show.stored(1, in: podcast) == show.episode(1).body)

        // The user keeps copies in an archive of their own, and points the podcast folder there.
        let archive = podcast.home.path("archive/Linked")
        try FileManager.default.createDirectory(atPath: podcast.home.path("archive"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder, toPath: archive)
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: archive)

        // Refused, as every file delete leaves is: exit 1, and the line says why.
        let deleted = try await podcast.run(["delete", "2"])
        #expect(deleted.status == 1, "\(deleted.stderr)")
        #expect(deleted.stderr.contains("it is not the file podcast placed there"), "\(deleted.stderr)")
        #expect(
            SubscriptionScenario.contents(archive + "/" + show.fileName(1)) == show.episode(1).body,
            "podcast deleted the archive's copy through the link: \(deleted.stderr)")
    }

    // MARK: R7. Leaving alone what is not the reason's own is no failure

    /// `unsubscribe --delete-files` rightly leaves the playlist a hand download wrote, but says so
    /// as an `error:` ("it was downloaded by hand", of a playlist) and exits 1, while it skips the
    /// hand-downloaded episode itself in silence: a script sees the unsubscribe fail.
    @Test func unsubscribeDeleteFilesDoesNotFailOverAPlaylistWrittenByHand() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Listed", slug: "listed", episodes: 2, on: server)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["episodes", show.feedURL]).status == 0)
        let byHand = try await podcast.run(["download", "1", "--playlist"])
        #expect(byHand.status == 0, "\(byHand.stderr)")
        let playlist = show.folder(in: podcast) + "/Listed.m3u8"
        #expect(FileManager.default.fileExists(atPath: playlist))
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])

        let gone = try await podcast.run(["unsubscribe", show.feedURL, "--delete-files"])
        #expect(gone.status == 0, "\(gone.stderr)")
        #expect(!gone.stderr.contains("error:"), "\(gone.stderr)")
        #expect(FileManager.default.fileExists(atPath: playlist))
        #expect(show.stored(2, in: podcast) == show.episode(2).body)
    }

    // MARK: R8. A moved feed: the subscription's row and the key it deletes by

    /// `ownFiles` finds a subscription's files by its number, but `keep` and `unsubscribe
    /// --delete-files` then delete by `EpisodeKey(feed: subscription.url, identity:)`. After a move
    /// whose rekeying met the same episode downloaded by hand from the new address (`UPDATE OR
    /// IGNORE` leaves the subscription's row under the old one), that key is the hand download's:
    /// podcast tries the user's file (refused only by the subscription check, as an error, exit 1)
    /// and never deletes the subscription's own.
    @Test func unsubscribeAfterAMoveDeletesItsOwnFileNotTheHandDownloadsOfTheSameEpisode() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Moved", slug: "moved", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "1"])
        #expect(try await podcast.run(["update"]).status == 0)
        let own = show.folder(in: podcast) + "/" + show.fileName(1)
        #expect(SubscriptionScenario.contents(own) == show.episode(1).body)

        // The feed moves; the user downloads the episode from the new address by hand, elsewhere.
        show.move(to: "/moved/new.xml", .permanentRedirect)
        let archive = podcast.home.path("archive")
        #expect(try await podcast.run(["episodes", show.feedURL]).status == 0)
        let byHand = try await podcast.run(["download", "1", "--episodes-dir", archive])
        #expect(byHand.status == 0, "\(byHand.stderr)")
        let mine = show.folder(in: podcast, episodesDirectory: archive) + "/" + show.fileName(1)
        #expect(SubscriptionScenario.contents(mine) == show.episode(1).body)
        let followed = try await podcast.run(["update"])
        #expect(followed.status == 0, "\(followed.stderr)")

        let gone = try await podcast.run(["unsubscribe", show.feedURL, "--delete-files"])
        #expect(gone.status == 0, "\(gone.stderr)")
        #expect(SubscriptionScenario.contents(mine) == show.episode(1).body)
        #expect(SubscriptionScenario.contents(own) == nil, "the subscription's own file stays: \(gone.stdout) \(gone.stderr)")
    }

    // MARK: R9. clean and a `.part` name podcast never makes

    /// podcast names its partial files `<16 hex digits>.part` (`DownloadBatch.partialName(of:)`), yet
    /// `clean` (and the sweep at the start of every batch, after a minute) removes any `*.part` in
    /// `.partial` that no record names: a file it could not have made, in a folder the user may
    /// already have had (`--episodes-dir ~/Downloads`).
    @Test func cleanRemovesOnlyPartialFilesNamedAsPodcastNamesThem() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Partial", slug: "partial", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["episodes", show.feedURL]).status == 0)
        #expect(try await podcast.run(["download", "1"]).status == 0)
        let notes = podcast.episodesDirectory + "/.partial/lecture notes.part"
        let mine = Data("not podcast's".utf8)
        try mine.write(to: URL(filePath: notes))

        let cleaned = try await podcast.run(["clean"])
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(SubscriptionScenario.contents(notes) == mine, "\(cleaned.stdout) \(cleaned.stderr)")
    }

    // MARK: R10. A folder the user made

    /// `LibraryDeletion.removeFolderIfEmpty` rmdirs the folder of the last file it deleted, whoever
    /// made it: a podcast folder the user set up beforehand (group-shared with the setgid bit for a
    /// media server, say) goes with its mode, and the next download makes a plain one.
    @Test func deleteLeavesAPodcastFolderTheUserMade() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Shared", slug: "shared", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        let folder = show.folder(in: podcast)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o2775])
        #expect(try await podcast.run(["episodes", show.feedURL]).status == 0)
        let downloaded = try await podcast.run(["download", "1"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        #expect(show.stored(1, in: podcast) == show.episode(1).body)

        let deleted = try await podcast.run(["delete", "1"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder), "the user's folder was removed: \(deleted.stdout) \(deleted.stderr)")
    }

    // MARK: R4. A subscription number given again

    /// The commit makes an unsubscribed subscription's files no one's. An update already fetching
    /// for it records the file with its number after the unsubscribe, and `subscribe` gives the
    /// next subscription the same number (SQLite's rowid, no AUTOINCREMENT): the new
    /// subscription's `unsubscribe --delete-files` then deletes a file its updates never fetched.
    @Test func aFileTheOldSubscriptionFinishedIsNotTheResubscriptionsToDelete() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Again", slug: "again", episodes: 1, on: server)
        // The episode arrives slowly: 12 kB in 500-byte pieces every 150 ms, some 3.6 s.
        let episode = show.episode(1)
        server.setRoute(episode.path, .file(
            body: episode.body, contentType: "audio/mpeg", etag: "\"again-1\"",
            fault: .paced(chunkSize: 500, interval: .milliseconds(150))))
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "1"])

        async let update = podcast.run(["update"])
        // While the update fetches the episode: unsubscribe, then subscribe again (wanting none of the back catalogue).
        // A loaded run may take long to start the update; without its request there is nothing to test.
        let fetching = try await ResumeScenario.wait(upTo: .seconds(120)) { server.requestCount(path: episode.path) > 0 }
        try #require(fetching, "the update never asked for the episode")
        let gone = try await podcast.run(["unsubscribe", show.feedURL])
        #expect(gone.status == 0, "\(gone.stderr)")
        let back = try await podcast.run(["subscribe", show.feedURL, "--first", "0"])
        #expect(back.status == 0, "\(back.stderr)")
        let updated = try await update
        #expect(show.stored(1, in: podcast) == episode.body, "the update finished the episode: \(updated.stderr)")

        let deleted = try await podcast.run(["unsubscribe", show.feedURL, "--delete-files"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(
            show.stored(1, in: podcast) == episode.body,
            "fetched by the old subscription, deleted by the new one's unsubscribe: \(deleted.stdout) \(deleted.stderr)")
    }
}
