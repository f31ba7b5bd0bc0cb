import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `--with transcript,chapters,image,info`: companion files through the same engine as the media,
/// one of them failing, one refused for what it is, and the show's cover once per podcast folder.
@Suite(.timeLimit(.minutes(5))) struct CompanionCommandTests {
    private static let media = ResumeScenario.media(seed: 71, size: 200_000)
    private static let srt = Data("1\n00:00:00,000 --> 00:00:02,000\nHello, loop.\n".utf8)
    private static let html = Data("<!DOCTYPE html><html><body><p>A transcript as a web page.</p></body></html>".utf8)
    /// Images as their first bytes say (PNG, JPEG), the rest noise.
    private static let artwork = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + ResumeScenario.media(seed: 72, size: 3_000)
    private static let cover = Data([0xFF, 0xD8, 0xFF, 0xE0]) + ResumeScenario.media(seed: 73, size: 4_000)

    /// Two episodes: the newer with an SRT transcript (its first answer cut short), a VTT one
    /// podcast should not prefer, chapters that are gone (404) and its own artwork; the older
    /// with an HTML transcript and no artwork (the show's serves).
    private static func serve(on server: LoopbackServer) {
        server.setRoute("/a.mp3", .file(body: media, contentType: "audio/mpeg", etag: "\"a\""))
        server.setRoute("/b.mp3", .file(body: media, contentType: "audio/mpeg", etag: "\"b\""))
        server.setRoute("/a.srt", .sequence([.cut(afterBytes: 10, body: srt, headers: [("ETag", "\"s\"")]), .file(body: srt, etag: "\"s\"")]))
        server.setRoute("/a.vtt", .fixed(body: Data("WEBVTT\n".utf8)))
        server.setRoute("/a-chapters.json", .status(404))
        server.setRoute("/a.png", .fixed(body: artwork, headers: [("Content-Type", "image/png")]))
        server.setRoute("/b.html", .fixed(body: html, headers: [("Content-Type", "text/html")]))
        server.setRoute("/show.jpg", .fixed(body: cover, headers: [("Content-Type", "image/jpeg")]))
        LibraryScenario.serveFeed([
            LibraryScenario.Item(
                title: "Newer", guid: "a", date: "Mon, 09 Nov 2026 08:00:00 GMT", enclosure: server.url("/a.mp3"),
                extra: """
                    <podcast:transcript url="\(server.url("/a.vtt"))" type="text/vtt"/>
                    <podcast:transcript url="\(server.url("/a.srt"))" type="application/x-subrip"/>
                    <podcast:chapters url="\(server.url("/a-chapters.json"))" type="application/json+chapters"/>
                    <itunes:image href="\(server.url("/a.png"))"/>
                    """),
            LibraryScenario.Item(
                title: "Older", guid: "b", date: "Mon, 02 Nov 2026 08:00:00 GMT", enclosure: server.url("/b.mp3"),
                extra: "<podcast:transcript url=\"\(server.url("/b.html"))\" type=\"text/html\"/>"),
        ], extra: "<itunes:image href=\"\(server.url("/show.jpg"))\"/>", on: server)
    }

    @Test func companionsComeThroughTheEngineAndAFailedOneIsAWarning() async throws {
        let server = try LoopbackServer()
        Self.serve(on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let result = try await podcast.run(["download", "all", "--with", "transcript,chapters,image,info", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout) == ["Newer": "downloaded", "Older": "downloaded"])
        #expect(result.stderr.contains("episode 1 (Newer): its chapters file was not saved"), "\(result.stderr)")
        let folder = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle
        let read = { (name: String) in FileManager.default.contents(atPath: folder + "/" + name) }
        #expect(read("2026-11-09 Newer.mp3") == Self.media)
        #expect(read("2026-11-09 Newer.srt") == Self.srt)
        #expect(read("2026-11-09 Newer.png") == Self.artwork)
        #expect(read("2026-11-02 Older.transcript.html") == Self.html, "an HTML transcript is a transcript, not a refused episode")
        #expect(read("2026-11-02 Older.jpg") == Self.cover, "an episode without artwork takes the show's")
        #expect(read("cover.jpg") == Self.cover)
        #expect(read("2026-11-09 Newer.chapters.json") == nil)
        let info = try JSONSerialization.jsonObject(with: try #require(read("2026-11-09 Newer.info.json"))) as? [String: Any]
        let episode = try #require(info?["episode"] as? [String: Any])
        #expect(episode["title"] as? String == "Newer")
        #expect(episode["published"] as? String == "2026-11-09T08:00:00Z")
        #expect((episode["transcripts"] as? [Any])?.count == 2)
        #expect((info?["podcast"] as? [String: Any])?["title"] as? String == LibraryScenario.podcastTitle)
        // The cut transcript was tried again, like an episode; the SRT was preferred to the VTT.
        #expect(ResumeScenario.requests(server, path: "/a.srt").count == 2)
        #expect(ResumeScenario.requests(server, path: "/a.vtt").isEmpty)
        #expect(ResumeScenario.requests(server, path: "/show.jpg").count == 2, "once for the older episode, once for the cover")
        // Companions are never episodes: the listing still has two, both downloaded.
        let listed = try await podcast.run(["episodes", server.url("/feed.xml"), "--json"])
        let episodes = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        #expect((episodes?["episodes"] as? [[String: Any]])?.compactMap { $0["state"] as? String } == ["downloaded", "downloaded"])
    }

    @Test func aSecondRunFetchesOnlyTheCompanionsThatAreMissing() async throws {
        let server = try LoopbackServer()
        Self.serve(on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let first = try await podcast.run(["download", "all"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await podcast.run(["download", "1", "--with", "transcript,info", "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(ResumeScenario.states(second.stdout) == ["Newer": "skipped"])
        let folder = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle
        #expect(FileManager.default.contents(atPath: folder + "/2026-11-09 Newer.srt") == Self.srt)
        #expect(FileManager.default.fileExists(atPath: folder + "/2026-11-09 Newer.info.json"))
        let third = try await podcast.run(["download", "1", "--with", "transcript,info"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(ResumeScenario.requests(server, path: "/a.srt").count == 2, "the transcript is there: not fetched again")
        #expect(ResumeScenario.requests(server, path: "/a.mp3").count == 1)
    }

    @Test func aCompanionNeverReplacesAFileTheUserPutThere() async throws {
        let server = try LoopbackServer()
        Self.serve(on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let folder = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let mine = Data("my own subtitles".utf8)
        try mine.write(to: URL(filePath: folder + "/2026-11-09 Newer.srt"))
        try mine.write(to: URL(filePath: folder + "/cover.png"))
        let result = try await podcast.run(["download", "1", "--with", "transcript,image"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("left \(folder)/2026-11-09 Newer.srt in place: podcast did not write it"), "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: folder + "/2026-11-09 Newer.srt") == mine)
        #expect(FileManager.default.contents(atPath: folder + "/cover.png") == mine)
        #expect(!FileManager.default.fileExists(atPath: folder + "/cover.jpg"), "a folder with a cover gets no other")
    }

    @Test func aWebPageServedAsArtworkOrChaptersIsRefusedInOneLineAndTheEpisodeKept() async throws {
        let server = try LoopbackServer()
        let page = Data("<!DOCTYPE html><html><body><form>Log in to continue</form></body></html>".utf8)
        server.setRoute("/c.mp3", .file(body: Self.media, contentType: "audio/mpeg", etag: "\"c\""))
        // The server's types lie both ways: the pages claim to be an image and JSON, the cover, a PNG, claims to be a JPEG.
        server.setRoute("/c.jpg", .fixed(body: page, headers: [("Content-Type", "image/jpeg")]))
        server.setRoute("/c-chapters.json", .fixed(body: page, headers: [("Content-Type", "application/json")]))
        server.setRoute("/show.jpg", .fixed(body: Self.artwork, headers: [("Content-Type", "image/jpeg")]))
        LibraryScenario.serveFeed([
            LibraryScenario.Item(
                title: "Walled", guid: "c", date: "Mon, 09 Nov 2026 08:00:00 GMT", enclosure: server.url("/c.mp3"),
                extra: """
                    <podcast:chapters url="\(server.url("/c-chapters.json"))" type="application/json+chapters"/>
                    <itunes:image href="\(server.url("/c.jpg"))"/>
                    """),
        ], extra: "<itunes:image href=\"\(server.url("/show.jpg"))\"/>", on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let result = try await podcast.run(["download", "all", "--with", "chapters,image", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout) == ["Walled": "downloaded"])
        // One line each, in whichever order they arrived.
        let refusals = result.stderr.split(separator: "\n").filter { $0.contains("was not saved") }.sorted()
        #expect(refusals == [
            "warning: episode 1 (Walled): its artwork was not saved (the server sent a web page for \(server.url("/c.jpg")), "
                + "not a JPEG, PNG, WebP or GIF image); the episode is kept without it",
            "warning: episode 1 (Walled): its chapters file was not saved (the server sent a web page for \(server.url("/c-chapters.json")), "
                + "not a JSON document); the episode is kept without it",
        ], "\(result.stderr)")
        let folder = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle
        #expect(FileManager.default.contents(atPath: folder + "/2026-11-09 Walled.mp3") == Self.media)
        #expect(FileManager.default.contents(atPath: folder + "/cover.png") == Self.artwork, "named by its bytes, not by its type")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == ["2026-11-09 Walled.mp3", "cover.png"], "nothing saved under a companion's name, no temporary file left")
    }

    @Test func aCompanionCutShortByCtrlCIsDroppedQuietlyAndFetchedByTheNextDownload() async throws {
        let server = try LoopbackServer()
        server.setRoute("/d.mp3", .file(body: Self.media, contentType: "audio/mpeg", etag: "\"d\""))
        server.setRoute("/d.srt", .sequence([.stall(afterBytes: 10, body: Self.srt), .fixed(body: Self.srt)]))
        LibraryScenario.serveFeed([
            LibraryScenario.Item(
                title: "Stalled", guid: "d", date: "Mon, 09 Nov 2026 08:00:00 GMT", enclosure: server.url("/d.mp3"),
                extra: "<podcast:transcript url=\"\(server.url("/d.srt"))\" type=\"application/x-subrip\"/>"),
        ], on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let download = try podcast.start(["download", "1", "--with", "transcript", "--json"])
        // The transcript is asked for once the episode's file is in place; it stalls there.
        let asked = try await ResumeScenario.wait { server.requestCount(path: "/d.srt") > 0 }
        #expect(asked, "the transcript was never asked for")
        kill(download.pid, SIGINT)
        let result = await download.finish(within: .seconds(20))
        #expect(result.status == 130, "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout) == ["Stalled": "downloaded"], "\(result.stdout)")
        #expect(!result.stderr.contains("transcript"), "dropped quietly: \(result.stderr)")
        let folder = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["2026-11-09 Stalled.mp3"], "no transcript, no temporary file")
        #expect(FileManager.default.contents(atPath: folder + "/2026-11-09 Stalled.mp3") == Self.media)
        let again = try await podcast.run(["download", "1", "--with", "transcript"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(FileManager.default.contents(atPath: folder + "/2026-11-09 Stalled.srt") == Self.srt)
        #expect(server.requestCount(path: "/d.mp3") == 1, "the episode is not fetched again")
    }
}
