import Foundation
import Glibc
import PodcastKit
import PodcastTestSupport
import Testing

/// Keeping, deleting, re-fetching and checking what is in the Episodes directory, through the
/// binary: `delete`, `keep`, `download --force`, `verify`, `clean`, `--playlist`, and the digest
/// each finished file is recorded with.
@Suite(.timeLimit(.minutes(5))) struct LibraryMaintenanceTests {
    private static let bodies = (1...3).map { ResumeScenario.media(seed: UInt64(90 + $0), size: 150_000 + $0) }
    private static let titles = ["One", "Two", "Three"]

    /// Serves three episodes, One (oldest) to Three (newest), each with an ETag.
    private static func serveThree(on server: LoopbackServer) {
        LibraryScenario.serveDaily(bodies, titles: titles, guidPrefix: "g", on: server)
    }

    private static func path(_ podcast: PodcastBinary, _ index: Int, _ suffix: String = "mp3") -> String {
        podcast.episodesDirectory + "/\(LibraryScenario.podcastTitle)/2026-11-0\(index + 2) \(titles[index]).\(suffix)"
    }

    /// Waits (bounded) until the partial files hold `bytes` and a record vouches for them with
    /// `etag`: a kill -9 from then on leaves something `resume` continues.
    private static func waitUntilRecorded(_ podcast: PodcastBinary, etag: String, bytes: Int) async throws -> Bool {
        try await ResumeScenario.wait {
            guard podcast.partialFiles().reduce(0, { $0 + $1.size }) >= bytes, let store = try? podcast.openStore() else { return false }
            return ((try? store.downloads.all()) ?? []).contains { $0.resume.etag == etag && $0.resume.partialPath != nil }
        }
    }

    // MARK: Keeping and deleting

    @Test func deleteRemovesAnEpisodesFilesAndNeverAForeignFile() async throws {
        let server = try LoopbackServer()
        Self.serveThree(on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let downloaded = try await podcast.run(["download", "all", "--with", "info"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        let folder = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle
        let notes = Data("mine".utf8)
        try notes.write(to: URL(filePath: folder + "/notes.txt"))
        try notes.write(to: URL(filePath: Self.path(podcast, 0, "srt")))

        let deleted = try await podcast.run(["delete", "3", "--json"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: Self.path(podcast, 0)))
        #expect(!FileManager.default.fileExists(atPath: Self.path(podcast, 0, "info.json")))
        #expect(FileManager.default.contents(atPath: folder + "/notes.txt") == notes)
        #expect(FileManager.default.contents(atPath: Self.path(podcast, 0, "srt")) == notes, "named like a companion, but the user's")
        #expect(FileManager.default.contents(atPath: Self.path(podcast, 1)) == Self.bodies[1])

        // A recorded file something else wrote over is not podcast's any more.
        try notes.write(to: URL(filePath: Self.path(podcast, 1)))
        let refused = try await podcast.run(["delete", "2"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("so it was changed since"), "\(refused.stderr)")
        #expect(FileManager.default.contents(atPath: Self.path(podcast, 1)) == notes)

        let old = try await podcast.run(["delete", "--older-than", "0"])
        #expect(old.status == 1, "episode Two is still refused")
        #expect(!FileManager.default.fileExists(atPath: Self.path(podcast, 2)))
        #expect(LibraryScenario.files(under: folder).sorted() == [
            "2026-11-02 One.srt", "2026-11-03 Two.info.json", "2026-11-03 Two.mp3", "notes.txt",
        ], "a refused episode keeps its companions")
    }

    /// An episode podcast deleted is listed as `deleted`, and `new` does not offer it again; asked
    /// for by number, it is fetched again.
    @Test func aDeletedEpisodeIsListedAsDeletedAndNotNewAgain() async throws {
        let server = try LoopbackServer()
        Self.serveThree(on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        #expect(try await podcast.run(["download", "1-2"]).status == 0)
        #expect(try await podcast.run(["delete", "1"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: Self.path(podcast, 2)))

        let listed = try await podcast.run(["episodes", server.url("/feed.xml"), "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let states = try #require(document["episodes"] as? [[String: Any]]).map { $0["state"] as? String ?? "" }
        #expect(states == ["deleted", "downloaded", "new"])

        let new = try await podcast.run(["download", "new", "--json"])
        #expect(new.status == 0, "\(new.stderr)")
        #expect(ResumeScenario.states(new.stdout) == ["One": "downloaded"], "only the episode never downloaded")
        #expect(server.requestCount(path: "/2.mp3") == 1, "Three, deleted, was not fetched again")
        #expect(!FileManager.default.fileExists(atPath: Self.path(podcast, 2)))

        let asked = try await podcast.run(["download", "1"])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(FileManager.default.contents(atPath: Self.path(podcast, 2)) == Self.bodies[2])
        let again = try await podcast.run(["episodes", server.url("/feed.xml"), "--json"])
        let relisted = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(try #require(relisted["episodes"] as? [[String: Any]]).map { $0["state"] as? String ?? "" } == ["downloaded", "downloaded", "downloaded"])
    }

    @Test func keepDeletesOldFilesWithTheirCompanionsAndUpdateDoesNotFetchThemAgain() async throws {
        let server = try LoopbackServer()
        Self.serveThree(on: server)
        let podcast = try PodcastBinary()
        let subscribed = try await podcast.run(["subscribe", server.url("/feed.xml"), "--first", "3", "--keep", "1", "--with", "info"])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        let folder = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(filePath: folder + "/notes.txt"))
        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(LibraryScenario.files(under: folder).sorted() == ["2026-11-04 Three.info.json", "2026-11-04 Three.mp3", "notes.txt"])
        let again = try await podcast.run(["update"])
        #expect(again.status == 0, "\(again.stderr)")
        for index in 0..<3 { #expect(ResumeScenario.requests(server, path: "/\(index).mp3").count == 1) }
        #expect(LibraryScenario.files(under: folder).count == 3)
    }

    // MARK: Fetching again

    @Test func forceKilledMidwayLeavesTheOldFileAndResumeReplacesIt() async throws {
        let server = try LoopbackServer()
        let old = ResumeScenario.media(seed: 101, size: 400_000)
        let new = ResumeScenario.media(seed: 102, size: 400_000)
        ResumeScenario.serveFeed([.init(title: "Forced", path: "/f.mp3", length: old.count)], on: server)
        server.setRoute("/f.mp3", .file(body: old, contentType: "audio/mpeg", etag: "\"old\""))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let first = try await podcast.run(["download", "1"])
        #expect(first.status == 0, "\(first.stderr)")
        let file = try #require(podcast.finishedFile(titled: "Forced"))

        server.setRoute("/f.mp3", .file(body: new, contentType: "audio/mpeg", etag: "\"new\"", fault: .stall(afterBytes: 150_000)))
        let forced = try podcast.start(["download", "1", "--force"])
        let reached = try await Self.waitUntilRecorded(podcast, etag: "\"new\"", bytes: 150_000)
        #expect(reached, "the new copy never reached 150,000 bytes on record: \(podcast.partialFiles())")
        kill(forced.pid, SIGKILL)
        _ = await forced.finish(within: .seconds(20))
        #expect(FileManager.default.contents(atPath: file) == old, "the old file stays until the new one is complete")

        server.setRoute("/f.mp3", .file(body: new, contentType: "audio/mpeg", etag: "\"new\""))
        let resumed = try await podcast.run(["resume", "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(FileManager.default.contents(atPath: file) == new)
        #expect(try FileManager.default.contentsOfDirectory(atPath: (file as NSString).deletingLastPathComponent).count == 1)
        #expect(ResumeScenario.requests(server, path: "/f.mp3").last?.header("Range") == ResumeScenario.range(from: 150_000))
        let verified = try await podcast.run(["verify"])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test func verifyFindsTruncatedAndFlippedFilesAndResumeFetchesThemAgain() async throws {
        let server = try LoopbackServer()
        Self.serveThree(on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        #expect(try await podcast.run(["download", "all"]).status == 0)
        let clean = try await podcast.run(["verify"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stderr.contains("checked 3 files: 3 intact, 0 missing, 0 damaged"), "\(clean.stderr)")

        let truncated = try FileHandle(forWritingTo: URL(filePath: Self.path(podcast, 0)))
        try truncated.truncate(atOffset: 1_000)
        try truncated.close()
        var flipped = Self.bodies[1]
        flipped[77_777] ^= 0x01
        try flipped.write(to: URL(filePath: Self.path(podcast, 1)))
        try FileManager.default.removeItem(atPath: Self.path(podcast, 2))

        let checked = try await podcast.run(["verify", "--json"])
        #expect(checked.status == 1)
        #expect(checked.stderr.contains("damaged: it has 1000 bytes, not the \(Self.bodies[0].count) podcast wrote"), "\(checked.stderr)")
        #expect(checked.stderr.contains("damaged: its SHA-256 is not the one podcast recorded: \(Self.path(podcast, 1))"), "\(checked.stderr)")
        #expect(checked.stderr.contains("missing: \(Self.path(podcast, 2))"), "\(checked.stderr)")
        let states = (try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any])?["files"] as? [[String: Any]]
        #expect(Set(states?.compactMap { $0["state"] as? String } ?? []) == ["damaged", "missing"])

        // A damaged file is no longer the file podcast wrote: it is left for the user, and the
        // fresh copy takes a free name beside it. A missing one comes back under its own name.
        let resumed = try await podcast.run(["resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("left \(Self.path(podcast, 0)) in place: its contents changed"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("left \(Self.path(podcast, 1)) in place: its contents changed"), "\(resumed.stderr)")
        #expect(FileManager.default.contents(atPath: Self.path(podcast, 0))?.count == 1_000)
        #expect(FileManager.default.contents(atPath: Self.path(podcast, 1)) == flipped)
        for index in 0..<2 {
            let fresh = Self.path(podcast, index).replacingOccurrences(of: ".mp3", with: " (2).mp3")
            #expect(FileManager.default.contents(atPath: fresh) == Self.bodies[index])
        }
        #expect(FileManager.default.contents(atPath: Self.path(podcast, 2)) == Self.bodies[2])
        let again = try await podcast.run(["verify"])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func aResumedFileIsRecordedWithTheDigestOfAllItsBytes() async throws {
        let server = try LoopbackServer()
        let body = ResumeScenario.media(seed: 111, size: 500_000)
        ResumeScenario.serveFeed([.init(title: "Halves", path: "/h.mp3", length: body.count)], on: server)
        server.setRoute("/h.mp3", .file(body: body, contentType: "audio/mpeg", etag: "\"h\"", fault: .stall(afterBytes: 200_000)))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        _ = try await podcast.interruptedDownload(["1"], once: 200_000)
        server.setRoute("/h.mp3", .file(body: body, contentType: "audio/mpeg", etag: "\"h\""))
        let resumed = try await podcast.run(["resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let record = try #require(try podcast.openStore().downloads.all().first)
        #expect(record.sha256 == LibraryScenario.sha256(body))
        #expect(record.bytes == Int64(body.count))
    }

    // MARK: Cleaning

    @Test func cleanAfterKillNineRemovesOrphansAndKeepsWhatResumeContinues() async throws {
        let server = try LoopbackServer()
        let done = ResumeScenario.media(seed: 121, size: 50_000)
        let slow = ResumeScenario.media(seed: 122, size: 600_000)
        ResumeScenario.serveFeed([.init(title: "Done", path: "/d.mp3", length: done.count), .init(title: "Slow", path: "/s.mp3", length: slow.count)], on: server)
        server.setRoute("/d.mp3", .file(body: done, contentType: "audio/mpeg", etag: "\"d\""))
        server.setRoute("/s.mp3", .file(body: slow, contentType: "audio/mpeg", etag: "\"s\"", fault: .stall(afterBytes: 250_000)))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        // Newest first: 1 is Slow, 2 is Done.
        #expect(try await podcast.run(["download", "2"]).status == 0)
        let killed = try podcast.start(["download", "1"])
        let reached = try await Self.waitUntilRecorded(podcast, etag: "\"s\"", bytes: 250_000)
        #expect(reached, "\(podcast.partialFiles())")
        kill(killed.pid, SIGKILL)
        _ = await killed.finish(within: .seconds(20))
        let resumable = try #require(podcast.partialFiles().first)

        let partials = podcast.episodesDirectory + "/.partial"
        let orphan = partials + "/0123456789abcdef.part"
        try Data(count: 12_345).write(to: URL(filePath: orphan))
        let folder = podcast.episodesDirectory + "/" + ResumeScenario.podcastTitle
        let temporary = folder + "/.podcast-0123456789abcdef.\(killed.pid).tmp"
        try Data(count: 100).write(to: URL(filePath: temporary))
        let doneFile = try #require(podcast.finishedFile(titled: "Done"))
        try FileManager.default.removeItem(atPath: doneFile)

        let cleaned = try await podcast.run(["clean", "--json"])
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(cleaned.stderr.contains("removed \(orphan)"), "\(cleaned.stderr)")
        #expect(cleaned.stderr.contains("removed \(temporary)"), "\(cleaned.stderr)")
        #expect(cleaned.stderr.contains("forgot Done: its file is gone"), "\(cleaned.stderr)")
        #expect(cleaned.stderr.contains("removed 2 orphaned files (\(ByteCount.text(12_445))) and 1 record of files that are gone"), "\(cleaned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(!FileManager.default.fileExists(atPath: temporary))
        #expect(podcast.partialFiles().map(\.path) == [resumable.path], "the partial file resume continues stays")

        server.setRoute("/s.mp3", .file(body: slow, contentType: "audio/mpeg", etag: "\"s\""))
        let resumed = try await podcast.run(["resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(podcast.finishedBytes(titled: "Slow") == slow)
        #expect(ResumeScenario.requests(server, path: "/s.mp3").last?.header("Range") != nil)
    }

    // MARK: Playlists

    @Test func thePlaylistListsNewestFirstAndFollowsDeletions() async throws {
        let server = try LoopbackServer()
        Self.serveThree(on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "playlist = true\n")
        #expect(try await podcast.run(["download", "all"]).status == 0)
        let playlist = podcast.episodesDirectory + "/\(LibraryScenario.podcastTitle)/\(LibraryScenario.podcastTitle).m3u8"
        #expect(try String(contentsOfFile: playlist, encoding: .utf8) == """
            #EXTM3U
            #EXTINF:-1,Three
            2026-11-04 Three.mp3
            #EXTINF:-1,Two
            2026-11-03 Two.mp3
            #EXTINF:-1,One
            2026-11-02 One.mp3

            """)
        #expect(try await podcast.run(["delete", "1"]).status == 0)
        #expect(try String(contentsOfFile: playlist, encoding: .utf8) == """
            #EXTM3U
            #EXTINF:-1,Two
            2026-11-03 Two.mp3
            #EXTINF:-1,One
            2026-11-02 One.mp3

            """)
    }
}
