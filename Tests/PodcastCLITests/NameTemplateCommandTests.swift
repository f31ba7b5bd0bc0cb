import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `--name-template`, `--portable-names` and a subscription's own template, through the binary:
/// where the files land, whatever the feed's values try.
@Suite(.timeLimit(.minutes(5))) struct NameTemplateCommandTests {
    private static let media = Data("not really audio, but bytes to keep".utf8)

    /// Two episodes of one batch that would get the same file name: the one listed first gets
    /// the name and the other ` (2)`, even when the other finishes first.
    @Test func sameNamedEpisodesAreNamedInListingOrderWhicheverFinishesFirst() async throws {
        let server = try LoopbackServer()
        let listedFirst = ResumeScenario.media(seed: 71, size: 300_000)
        let listedSecond = ResumeScenario.media(seed: 72, size: 10_000)
        // Newest first: the feed's last item is listed first.
        ResumeScenario.serveFeed([
            ResumeScenario.Episode(title: "Same", path: "/media/second.mp3", length: listedSecond.count),
            ResumeScenario.Episode(title: "Same", path: "/media/first.mp3", length: listedFirst.count),
        ], on: server)
        // The first listed is held back until the other is in place.
        let gate = Gate(open: false)
        let whole = ServerRoute.file(body: listedFirst, contentType: "audio/mpeg", etag: "\"f\"")
        let held = ServerRoute.file(body: listedFirst, contentType: "audio/mpeg", etag: "\"f\"", fault: .stall(afterBytes: 20_000))
        server.setRoute("/media/first.mp3", .handler { _ in gate.isOpen ? whole : held })
        server.setRoute("/media/second.mp3", .file(body: listedSecond, contentType: "audio/mpeg", etag: "\"s\""))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "stall-timeout = 1\n")

        let download = try podcast.start(["download", "all"])
        let folder = podcast.episodesDirectory + "/" + ResumeScenario.podcastTitle
        let names = { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".mp3") } }
        #expect(try await ResumeScenario.wait { !names().isEmpty }, "the second listed was never placed")
        gate.open()
        let result = await download.finish(within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(names()) == ["2026-11-10 Same.mp3", "2026-11-10 Same (2).mp3"], "\(names())")
        #expect(FileManager.default.contents(atPath: folder + "/2026-11-10 Same.mp3") == listedFirst)
        #expect(FileManager.default.contents(atPath: folder + "/2026-11-10 Same (2).mp3") == listedSecond)
    }

    @Test func everyFieldWithHostileValuesStaysInsideTheEpisodesDirectory() async throws {
        let server = try LoopbackServer()
        server.setRoute("/m.mp3", .file(body: Self.media, contentType: "audio/mpeg", etag: "\"m\""))
        let hostile = [
            "../../../escaped", "/absolute/path", "tab\tand\nnewline", String(repeating: "long ", count: 200), "..", "\u{202E}txt.exe",
        ]
        let items = hostile.enumerated().map { index, title in
            LibraryScenario.Item(
                title: title.replacingOccurrences(of: "<", with: "&lt;"), guid: "../../guid/\(index)/..",
                date: "Mon, 0\(index + 1) Nov 2026 08:00:00 GMT", enclosure: server.url("/m.mp3") + "?n=\(index)",
                extra: "<itunes:episode>\(index)</itunes:episode><itunes:season>../\(index)</itunes:season>")
        }
        LibraryScenario.serveFeed(items, title: "../../Show/../..", on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let library = podcast.home.path("library")
        let episodes = library + "/Episodes"
        let result = try await podcast.run([
            "download", "all", "--episodes-dir", episodes,
            "--name-template", "{podcast}/{year}/{month}/{day}/{date} S{season}E{episode} {guid} {title} {podcast}.{ext}",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let files = LibraryScenario.files(under: library)
        #expect(files.filter { !$0.hasPrefix("Episodes/.partial/") }.count == hostile.count, "\(files)")
        for file in files {
            #expect(file.hasPrefix("Episodes/"), "\(file) is outside the Episodes directory")
            let components = file.split(separator: "/").dropFirst()
            #expect(components.allSatisfy { !$0.hasPrefix(".") || $0 == ".partial" }, "\(file)")
            #expect(components.allSatisfy { $0.utf8.count <= 255 }, "\(file)")
            #expect(!file.contains("\n") && !file.contains("\t"), "\(file)")
        }
        for file in files where !file.hasPrefix("Episodes/.partial/") {
            // Episodes/<podcast>/<year>/<month>/<day>/<file>: no value added a folder or took one away.
            let components = file.split(separator: "/")
            #expect(components.count == 6 && components[2] == "2026" && components[3] == "11", "\(file)")
            #expect(components[1] == "Show-..-", "\(file)")
        }
        // Nothing anywhere else in the home but the state store's own files.
        let home = try FileManager.default.contentsOfDirectory(atPath: podcast.home.path).filter { $0 != ".config" && $0 != "config.toml" }
        #expect(home.sorted() == ["library", "state"])
    }

    @Test func portableNamesCopyToAFATStickAsTheyAre() async throws {
        let server = try LoopbackServer()
        server.setRoute("/m.mp3", .file(body: Self.media, contentType: "audio/mpeg"))
        LibraryScenario.serveFeed([
            LibraryScenario.Item(title: "Pilot: Why Tones?", guid: "p", date: "Mon, 02 Nov 2026 08:00:00 GMT", enclosure: server.url("/m.mp3")),
            LibraryScenario.Item(
                title: "four / with slash | \"quoted\" *", guid: "f", date: "Mon, 09 Nov 2026 08:00:00 GMT", enclosure: server.url("/m.mp3?2")),
        ], title: "Tones: Overtones?", on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "portable-names = true\n")
        let result = try await podcast.run(["download", "all"])
        #expect(result.status == 0, "\(result.stderr)")
        let files = LibraryScenario.files(under: podcast.episodesDirectory).filter { !$0.hasPrefix(".partial") }
        #expect(files == [
            "Tones - Overtones/2026-11-02 Pilot - Why Tones.mp3",
            "Tones - Overtones/2026-11-09 four - with slash - 'quoted' -.mp3",
        ])
    }

    @Test func aSubscriptionsTemplateAndCompanionsReachItsUpdates() async throws {
        let server = try LoopbackServer()
        server.setRoute("/m.mp3", .file(body: Self.media, contentType: "audio/mpeg"))
        LibraryScenario.serveFeed([
            LibraryScenario.Item(
                title: "Newest", guid: "n", date: "Mon, 09 Nov 2026 08:00:00 GMT", enclosure: server.url("/m.mp3"),
                extra: "<itunes:season>3</itunes:season><itunes:episode>12</itunes:episode>"),
        ], on: server)
        let podcast = try PodcastBinary()
        let subscribed = try await podcast.run([
            "subscribe", server.url("/feed.xml"), "--name-template", "{podcast}/Season {season}/{episode}. {title}.{ext}", "--with", "info",
        ])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        let folder = podcast.episodesDirectory + "/\(LibraryScenario.podcastTitle)/Season 3"
        #expect(FileManager.default.contents(atPath: folder + "/12. Newest.mp3") == Self.media)
        let info = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(filePath: folder + "/12. Newest.info.json"))) as? [String: Any]
        #expect((info?["episode"] as? [String: Any])?["season"] as? Int == 3)
        #expect((info?["podcast"] as? [String: Any])?["author"] as? String == "Loop Author")
    }

    @Test func aBadTemplateIsBadUsage() async throws {
        let podcast = try PodcastBinary()
        let result = try await podcast.run(["download", "1", "--name-template", "{podcast}/../{title}.{ext}"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("has a folder named .."))
        try podcast.writeConfiguration("name-template = \"{title}.mp3\"\n")
        let configured = try await podcast.run(["download", "1"])
        #expect(configured.status == 64)
        #expect(configured.stderr.contains("must end with .{ext}"))
    }
}
