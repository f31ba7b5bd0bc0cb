import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `--tag`: MP3, M4A and Opus files made by ffmpeg, tagged by podcast with TagLib and read back
/// with ffprobe; a file TagLib cannot read is kept untagged, byte for byte, with a warning.
@Suite(.enabled(if: LibraryScenario.hasFFmpeg, "ffmpeg is not installed (make setup installs it)"))
struct TagCommandTests {
    @Test func mp3M4AAndOpusFilesAreTaggedAndReadBack() async throws {
        let server = try LoopbackServer()
        let files = [
            ("mp3", "libmp3lame", "audio/mpeg"), ("m4a", "aac", "audio/mp4"), ("opus", "libopus", "audio/opus"),
        ]
        var items: [LibraryScenario.Item] = []
        var served: [String: Data] = [:]
        for (index, (fileExtension, codec, type)) in files.enumerated() {
            let media = try await LibraryScenario.media(codec: codec, fileExtension: fileExtension)
            served[fileExtension] = media
            server.setRoute("/tone.\(fileExtension)", .file(body: media, contentType: type, etag: "\"\(fileExtension)\""))
            items.append(LibraryScenario.Item(
                title: "Tone in \(fileExtension.uppercased()) — ünïcode", guid: fileExtension, date: "Mon, 0\(index + 2) Nov 2026 08:00:00 GMT",
                enclosure: server.url("/tone.\(fileExtension)"), type: type, length: media.count,
                extra: "<itunes:episode>\(index + 40)</itunes:episode>"))
        }
        LibraryScenario.serveFeed(items, on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let result = try await podcast.run(["download", "all", "--tag"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("untagged"), "\(result.stderr)")
        #expect(!result.stderr.contains("the feed says"), "integrity and length checks apply to the bytes as served")
        let folder = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle
        for (index, (fileExtension, _, _)) in files.enumerated() {
            let title = "Tone in \(fileExtension.uppercased()) — ünïcode"
            let path = folder + "/2026-11-0\(index + 2) \(title).\(fileExtension)"
            let tags = try #require(try await LibraryScenario.tags(of: path), "ffprobe cannot read \(path)")
            #expect(tags["title"] == title)
            #expect(tags["album"] == LibraryScenario.podcastTitle)
            #expect(tags["artist"] == "Loop Author")
            #expect(tags["genre"] == "Podcast")
            #expect(tags["comment"] == "Notes of \(title)")
            #expect(tags["year"] == "2026")
            #expect(tags["track"] == String(index + 40))
            #expect(FileManager.default.contents(atPath: path) != served[fileExtension], "\(fileExtension) was not changed")
        }
        // The digest recorded is the tagged file's: verify finds every file intact.
        let verified = try await podcast.run(["verify"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("checked 3 files: 3 intact"), "\(verified.stderr)")
    }

    @Test func aFileTagLibCannotReadIsKeptUntaggedWithAWarning() async throws {
        let server = try LoopbackServer()
        // FLAC's signature, then nothing FLAC: TagLib opens it and finds it invalid.
        let broken = Data("fLaC".utf8) + ResumeScenario.media(seed: 81, size: 20_000)
        let wave = Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8) + ResumeScenario.media(seed: 82, size: 20_000)
        server.setRoute("/broken.flac", .file(body: broken, contentType: "audio/flac"))
        server.setRoute("/tone.wav", .file(body: wave, contentType: "audio/wav"))
        LibraryScenario.serveFeed([
            LibraryScenario.Item(title: "Broken", guid: "b", date: "Mon, 02 Nov 2026 08:00:00 GMT", enclosure: server.url("/broken.flac"), type: "audio/flac"),
            LibraryScenario.Item(title: "Wave", guid: "w", date: "Mon, 09 Nov 2026 08:00:00 GMT", enclosure: server.url("/tone.wav"), type: "audio/wav"),
        ], on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let result = try await podcast.run(["download", "all", "--tag", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout) == ["Broken": "downloaded", "Wave": "downloaded"])
        #expect(result.stderr.contains("(Broken): kept untagged: TagLib cannot read it"), "\(result.stderr)")
        #expect(result.stderr.contains("(Wave): kept untagged: not a format podcast tags"), "\(result.stderr)")
        let folder = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle
        #expect(FileManager.default.contents(atPath: folder + "/2026-11-02 Broken.flac") == broken)
        #expect(FileManager.default.contents(atPath: folder + "/2026-11-09 Wave.wav") == wave)
        // Left untagged, each is recorded with the digest of its bytes as served.
        let verified = try await podcast.run(["verify"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("checked 2 files: 2 intact"), "\(verified.stderr)")
    }
}
