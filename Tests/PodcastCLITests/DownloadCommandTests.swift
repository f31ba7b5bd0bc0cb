import Foundation
import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Testing

/// `podcast download` through the built binary against loopback servers.
@Suite(.timeLimit(.minutes(5))) struct DownloadCommandTests {
    /// A feed of `episodes` (title, path, body) served by `server`, its media as files with ETags.
    private static func serve(_ episodes: [(title: String, path: String, body: Data)], on server: LoopbackServer, podcast: String = "Loopback Show", route: (Int) -> ServerRoute? = { _ in nil }) {
        let items = episodes.enumerated().map { index, episode in
            """
            <item><title>\(episode.title)</title><guid>ep-\(index + 1)</guid>
            <pubDate>Mon, \(10 + index) Nov 2026 08:00:00 GMT</pubDate>
            <enclosure url="\(episode.path)" length="\(episode.body.count)" type="audio/mpeg"/></item>
            """
        }
        server.setRoute("/feed.xml", .fixed(body: Data("<rss><channel><title>\(podcast)</title>\(items.joined())</channel></rss>".utf8)))
        for (index, episode) in episodes.enumerated() {
            server.setRoute(episode.path, route(index) ?? .file(body: episode.body, contentType: "audio/mpeg", etag: "\"e\(index)\""))
        }
    }

    private static func audio(_ seed: Int, size: Int = 200_000) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ seed) })
    }

    private func json(_ text: String) throws -> [[String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try #require(document["results"] as? [[String: Any]])
    }

    private func list(_ podcast: PodcastBinary, _ server: LoopbackServer) async throws {
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
    }

    @Test func everyByteOnDiskEqualsTheSource() async throws {
        let server = try LoopbackServer()
        let episodes = (1...3).map { (title: "Episode \($0)", path: "/media/\($0).mp3", body: Self.audio($0)) }
        Self.serve(episodes, on: server)
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        let result = try await podcast.run(["download", "all", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let results = try json(result.stdout)
        #expect(results.map { $0["state"] as? String } == ["downloaded", "downloaded", "downloaded"])
        for (index, entry) in results.enumerated() {
            let episode = episodes[2 - index]  // newest first
            let path = try #require(entry["path"] as? String)
            #expect(path == podcast.stateDirectory + "/Episodes/Loopback Show/2026-11-\(10 + 2 - index) \(episode.title).mp3")
            #expect(try Data(contentsOf: URL(filePath: path)) == episode.body)
            #expect(entry["bytes"] as? Int == episode.body.count)
        }
        #expect(result.stderr.contains("downloaded 3, skipped 0, failed 0"))
        let partials = try FileManager.default.contentsOfDirectory(atPath: podcast.stateDirectory + "/Episodes/.partial")
        #expect(partials.isEmpty)
    }

    @Test func downloadedEpisodeIsSkippedNotFetchedAgain() async throws {
        let server = try LoopbackServer()
        Self.serve([(title: "Only", path: "/media/only.mp3", body: Self.audio(1))], on: server)
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        #expect(try await podcast.run(["download", "1"]).status == 0)
        let again = try await podcast.run(["download", "1", "--json"])
        #expect(again.status == 0)
        #expect(try json(again.stdout).first?["state"] as? String == "skipped")
        #expect(server.requestCount(path: "/media/only.mp3") == 1)
    }

    @Test func filesTheStoreDoesNotNameAreNeverTakenForPodcasts() async throws {
        let server = try LoopbackServer()
        Self.serve([(title: "Kept", path: "/media/kept.mp3", body: Self.audio(2))], on: server)
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        let downloaded = try await podcast.run(["download", "1", "--json"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        let first = try #require(try json(downloaded.stdout).first?["path"] as? String)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: podcast.stateDirectory + "/state.sqlite" + suffix)
        }
        // With the store lost, the file is like any other in the folder: someone else's. It is
        // neither shown as downloaded nor taken for the episode; the download goes beside it.
        try await list(podcast, server)
        let listed = try await podcast.run(["episodes", server.url("/feed.xml"), "--json"])
        #expect(listed.stdout.contains("\"state\":\"new\"") || listed.stdout.contains("\"state\": \"new\""), "\(listed.stdout)")
        let again = try await podcast.run(["download", "1", "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let entry = try #require(try json(again.stdout).first)
        #expect(entry["state"] as? String == "downloaded")
        #expect((entry["path"] as? String)?.hasSuffix("Kept (2).mp3") == true, "\(entry)")
        #expect(FileManager.default.contents(atPath: first) == Self.audio(2))
        #expect(server.requestCount(path: "/media/kept.mp3") == 2)
    }

    /// The state a kill -9 leaves between a finished file's move to its name and the record that
    /// names it (made here by taking the record back with the sqlite3 shell): the file is under its
    /// name, the record says it was still downloading, and the placement row says which file it
    /// is. The next run records it as downloaded, fetches nothing, and makes no `(2)` copy.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell takes the record back"))
    func aFileMovedIntoPlaceByAKilledRunIsRecordedNotFetchedAgain() async throws {
        let server = try LoopbackServer()
        Self.serve([(title: "Placed", path: "/media/placed.mp3", body: Self.audio(5))], on: server)
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        let downloaded = try await podcast.run(["download", "1", "--json"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        let path = try #require(try json(downloaded.stdout).first?["path"] as? String)
        let stamp = try #require(FileIO.stamp(ofName: path))
        let digest = LibraryScenario.sha256(Self.audio(5))
        let takeBack = try ChildProcess(URL(filePath: "/usr/bin/sqlite3"), [
            podcast.stateDirectory + "/state.sqlite",
            """
            UPDATE downloads SET state = 'downloading', path = NULL, sha256 = NULL, file_device = NULL, file_inode = NULL,
                file_changed = NULL, owner_pid = 999999999;
            INSERT INTO placements (feed, identity, device, inode, bytes, sha256)
                SELECT feed, identity, \(Int64(bitPattern: stamp.device)), \(Int64(bitPattern: stamp.inode)), \(Self.audio(5).count), '\(digest)'
                FROM downloads;
            """,
        ])
        let taken = await takeBack.finish(within: .seconds(10))
        #expect(taken.status == 0, "\(taken.stderr)")

        let resumed = try await podcast.run(["resume", "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let entry = try #require(try json(resumed.stdout).first)
        #expect(entry["state"] as? String == "skipped", "\(entry)")
        #expect(entry["path"] as? String == path)
        #expect(server.requestCount(path: "/media/placed.mp3") == 1, "fetched again")
        #expect(FileManager.default.contents(atPath: path) == Self.audio(5))
        #expect(try FileManager.default.contentsOfDirectory(atPath: FileIO.folder(of: path)).count == 1, "no (2) copy")
        // Recorded whole: the file is podcast's to delete.
        let deleted = try await podcast.run(["delete", "1"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell breaks the store"))
    func episodesTheStoreCannotRecordFailWithTheReasonAndNothingIsFetched() async throws {
        let server = try LoopbackServer()
        Self.serve([(title: "One", path: "/media/one.mp3", body: Self.audio(3)), (title: "Two", path: "/media/two.mp3", body: Self.audio(4))], on: server)
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        // A foreign writer's trigger stands in for a full disk or a broken file: no claim can be written.
        let refuse = try ChildProcess(URL(filePath: "/usr/bin/sqlite3"), [
            podcast.stateDirectory + "/state.sqlite",
            "CREATE TRIGGER refuse_claims BEFORE INSERT ON downloads BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;",
        ])
        #expect(await refuse.finish(within: .seconds(10)).status == 0)

        let result = try await podcast.run(["download", "all", "--json"])
        #expect(result.status == 1, "\(result.stderr)")
        let entries = try json(result.stdout)
        #expect(entries.map { $0["state"] as? String } == ["failed", "failed"])
        for entry in entries {
            let error = try #require(entry["error"] as? String)
            #expect(error.hasPrefix("could not record the download: ") && error.contains("refused for the test"), "\(error)")
        }
        #expect(server.requestCount(path: "/media/one.mp3") == 0 && server.requestCount(path: "/media/two.mp3") == 0)
    }

    @Test func oneFailingEpisodeNeverStopsTheOthersAndTheExitCodeTellsTheTruth() async throws {
        let server = try LoopbackServer()
        let episodes = [
            (title: "Fine", path: "/media/fine.mp3", body: Self.audio(1)),
            (title: "Gone", path: "/media/gone.mp3", body: Self.audio(2)),
            (title: "Login wall", path: "/media/wall.mp3", body: Self.audio(3)),
            (title: "Broken server", path: "/media/broken.mp3", body: Self.audio(4)),
        ]
        Self.serve(episodes, on: server) { index in
            switch index {
            case 1: .status(404)
            case 2: .fixed(body: Data("<html><body>Please sign in</body></html>".utf8), headers: [("Content-Type", "text/html")])
            case 3: .status(500)
            default: nil
            }
        }
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        // One attempt each: the retry policy has its own tests; this one is about the others going on.
        let result = try await podcast.run(["download", "all", "--json", "--retries", "1"])
        #expect(result.status == 1)
        let states = Dictionary(uniqueKeysWithValues: try json(result.stdout).map { ($0["title"] as? String ?? "", $0["state"] as? String ?? "") })
        #expect(states == ["Fine": "downloaded", "Gone": "failed", "Login wall": "failed", "Broken server": "failed"])
        #expect(server.requestCount(path: "/media/gone.mp3") == 1)
        #expect(result.stderr.contains("error: episode 3 (Gone): server answered 404 Not Found for \(server.url("/media/gone.mp3"))"))
        #expect(result.stderr.contains("sent a web page instead of the episode"))
        #expect(result.stderr.contains("downloaded 1, skipped 0, failed 3"))
        let folder = try FileManager.default.contentsOfDirectory(atPath: podcast.stateDirectory + "/Episodes/Loopback Show")
        #expect(folder == ["2026-11-10 Fine.mp3"])
    }

    @Test func hostileTitlesStayInsideTheEpisodesDirectory() async throws {
        let server = try LoopbackServer()
        Self.serve([(title: "../../../../tmp/evil", path: "/media/e.mp3", body: Self.audio(5))], on: server, podcast: "../../outside")
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        let result = try await podcast.run(["download", "1", "--json"])
        #expect(result.status == 0)
        let path = try #require(try json(result.stdout).first?["path"] as? String)
        #expect(path == podcast.stateDirectory + "/Episodes/outside/2026-11-10 tmp-evil.mp3")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil.mp3"))
    }

    @Test func twoProcessesNeverFetchTheSameEpisodeTwice() async throws {
        let server = try LoopbackServer()
        let episodes = (1...3).map { (title: "Slow \($0)", path: "/media/slow\($0).mp3", body: Self.audio($0, size: 60_000)) }
        Self.serve(episodes, on: server) { index in
            .slow(body: episodes[index].body, chunkSize: 6_000, interval: .milliseconds(30))
        }
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        let binary = builtExecutable(named: "podcast")
        let environment = ["PATH": "/usr/bin:/bin", "HOME": podcast.home.path, "PODCAST_HOME": podcast.stateDirectory, "XDG_CONFIG_HOME": podcast.home.path(".config")]
        let first = try ChildProcess(binary, ["download", "all", "--json"], environment: environment)
        let second = try ChildProcess(binary, ["download", "all", "--json"], environment: environment)
        let one = await first.finish(within: .seconds(60))
        let two = await second.finish(within: .seconds(60))
        #expect(one.status == 0 && two.status == 0, "\(one.stderr)\n\(two.stderr)")
        for episode in episodes {
            #expect(server.requestCount(path: episode.path) == 1)
            let path = podcast.stateDirectory + "/Episodes/Loopback Show/" + (try FileManager.default.contentsOfDirectory(atPath: podcast.stateDirectory + "/Episodes/Loopback Show").first { $0.contains(episode.title) } ?? "")
            #expect(try Data(contentsOf: URL(filePath: path)) == episode.body)
        }
        let states = try (json(one.stdout) + json(two.stdout)).compactMap { $0["state"] as? String }
        #expect(states.filter { $0 == "downloaded" }.count == 3)
    }

    @Test func musicPreviewsGoToThePreviewsFolder() async throws {
        let server = try LoopbackServer(routes: ["/p/1.m4a": .file(body: Self.audio(9, size: 30_000), contentType: "audio/mp4")])
        let answer = #"{"resultCount":1,"results":[{"kind":"song","trackId":5,"trackName":"Song","artistName":"Band","previewUrl":"\#(server.url("/p/1.m4a"))"}]}"#
        server.setRoute("/search", .fixed(body: Data(answer.utf8)))
        let podcast = try PodcastBinary(itunes: server)
        #expect(try await podcast.run(["search", "--media", "music", "song"]).status == 0)
        let result = try await podcast.run(["download", "1", "--json"])
        #expect(result.status == 0)
        #expect(try json(result.stdout).first?["path"] as? String == podcast.stateDirectory + "/Episodes/Previews/Band – Song.m4a")
    }

    @Test func episodesDirectoryOptionIsHonoured() async throws {
        let server = try LoopbackServer()
        Self.serve([(title: "Elsewhere", path: "/media/x.mp3", body: Self.audio(6))], on: server)
        let podcast = try PodcastBinary()
        let target = try TemporaryDirectory(prefix: "episodes-dir")
        try await list(podcast, server)
        #expect(try await podcast.run(["download", "1", "--episodes-dir", target.path]).status == 0)
        #expect(FileManager.default.fileExists(atPath: target.path + "/Loopback Show/2026-11-10 Elsewhere.mp3"))
    }

    @Test func pathsArePrintedWithoutDotParts() async throws {
        let server = try LoopbackServer()
        Self.serve([(title: "Plain", path: "/media/p.mp3", body: Self.audio(7))], on: server)
        let podcast = try PodcastBinary()
        let target = try TemporaryDirectory(prefix: "episodes-dir")
        try await list(podcast, server)
        let result = try await podcast.run(["download", "1", "--json", "--episodes-dir", target.path + "/./x/../eps"])
        #expect(result.status == 0)
        let path = target.path + "/eps/Loopback Show/2026-11-10 Plain.mp3"
        #expect(try json(result.stdout).first?["path"] as? String == path)
        #expect(result.stderr.contains("→ \(path)\n"), "\(result.stderr)")
    }

    @Test func aSpeedCapInGibibytesIsTaken() async throws {
        let server = try LoopbackServer()
        Self.serve([(title: "Fast", path: "/media/f.mp3", body: Self.audio(8))], on: server)
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        #expect(try await podcast.run(["download", "1", "--limit-rate", "1G"]).status == 0)
    }

    @Test(arguments: [["download", "0"], ["download", "x"], ["download", "9"], ["download", "1", "--concurrency", "0"], ["download", "1", "--limit-rate", "fast"], ["download", "1", "--episodes-dir", ""]])
    func badSelectionsAndOptionsAreBadUsage(arguments: [String]) async throws {
        let server = try LoopbackServer()
        Self.serve([(title: "A", path: "/media/a.mp3", body: Self.audio(1))], on: server)
        let podcast = try PodcastBinary()
        try await list(podcast, server)
        let result = try await podcast.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(server.requestCount(path: "/media/a.mp3") == 0)
    }
}

/// Interrupting a download: exit 130 with a message, and no half file under a final name.
@Suite(.timeLimit(.minutes(5))) struct DownloadInterruptionTests {
    @Test func sigtermExits130AndLeavesNoFinalFile() async throws {
        let server = try LoopbackServer()
        let body = Data(count: 400_000)
        server.setRoute("/feed.xml", .fixed(body: Data("<rss><channel><title>S</title><item><title>Long</title><guid>l</guid><enclosure url=\"/l.mp3\" length=\"400000\" type=\"audio/mpeg\"/></item></channel></rss>".utf8)))
        server.setRoute("/l.mp3", .stall(afterBytes: 100_000, body: body))
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let environment = ["PATH": "/usr/bin:/bin", "HOME": podcast.home.path, "PODCAST_HOME": podcast.stateDirectory, "XDG_CONFIG_HOME": podcast.home.path(".config")]
        let download = try ChildProcess(builtExecutable(named: "podcast"), ["download", "1"], environment: environment)
        // Signal once the transfer is under way: the server has seen the request.
        let deadline = ContinuousClock.now + .seconds(30)
        while server.requestCount(path: "/l.mp3") == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(download.pid, SIGTERM)
        let result = await download.finish(within: .seconds(30))
        #expect(result.status == 130)
        #expect(result.stderr.contains("interrupted"))
        let folder = podcast.stateDirectory + "/Episodes/S"
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] == [])
    }
}

/// The listing shows what the progress buffer knows.
@Suite(.timeLimit(.minutes(5))) struct EpisodeStateTests {
    @Test func listingShowsDownloadedEpisodesWithTheirPath() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Data("<rss><channel><title>S</title><item><title>One</title><guid>1</guid><enclosure url=\"/1.mp3\" type=\"audio/mpeg\"/></item><item><title>Two</title><guid>2</guid><enclosure url=\"/2.mp3\" type=\"audio/mpeg\"/></item></channel></rss>".utf8)))
        server.setRoute("/1.mp3", .fixed(body: Data(repeating: 7, count: 5000)))
        server.setRoute("/2.mp3", .status(404))
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        #expect(try await podcast.run(["download", "all"]).status == 1)
        let listed = try await podcast.run(["episodes", "--json", server.url("/feed.xml")])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let episodes = try #require(document["episodes"] as? [[String: Any]])
        let byTitle = Dictionary(uniqueKeysWithValues: episodes.map { ($0["title"] as? String ?? "", $0) })
        #expect(byTitle["One"]?["state"] as? String == "downloaded")
        #expect(byTitle["One"]?["path"] as? String == podcast.stateDirectory + "/Episodes/S/One.mp3")
        #expect(byTitle["Two"]?["state"] as? String == "failed")
        #expect(byTitle["Two"]?["path"] is NSNull)

        try FileManager.default.removeItem(atPath: podcast.stateDirectory + "/Episodes/S/One.mp3")
        let again = try await podcast.run(["episodes", "--json", server.url("/feed.xml")])
        #expect(again.stdout.contains("\"state\":\"new\""))
    }
}

/// The download JSON's `guid` is the feed's own guid, or null when the item has none.
@Suite(.timeLimit(.minutes(5))) struct DownloadJSONTests {
    @Test func guidIsTheFeedsOwnOrNull() async throws {
        let server = try LoopbackServer()
        server.setRoute("/feed.xml", .fixed(body: Data("<rss><channel><title>S</title><item><title>With</title><guid>g-1</guid><enclosure url=\"/1.mp3\"/></item><item><title>Without</title><enclosure url=\"/2.mp3\"/></item></channel></rss>".utf8)))
        server.setRoute("/1.mp3", .fixed(body: Data(repeating: 1, count: 100)))
        server.setRoute("/2.mp3", .fixed(body: Data(repeating: 2, count: 100)))
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["download", "all", "--json"])
        #expect(result.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let results = try #require(document["results"] as? [[String: Any]])
        let byTitle = Dictionary(uniqueKeysWithValues: results.map { ($0["title"] as? String ?? "", $0) })
        #expect(byTitle["With"]?["guid"] as? String == "g-1")
        #expect(byTitle["Without"]?["guid"] is NSNull)
    }
}
