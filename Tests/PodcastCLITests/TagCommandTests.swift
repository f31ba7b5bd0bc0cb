import Foundation
import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Testing

/// `--tag`: MP3, M4A and Opus files made by ffmpeg, tagged by podcast with TagLib and read back
/// with ffprobe; a file TagLib cannot read is kept untagged, byte for byte, with a warning.
@Suite(.enabled(if: LibraryScenario.hasFFmpeg, "ffmpeg is not installed (make setup installs it)"), .timeLimit(.minutes(5)))
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
        // The MP3's new tags went around its audio as served (spliced in place on ext4 and XFS,
        // else copied): between its ID3v2 tag and its ID3v1 tag, every audio byte is the server's.
        let mp3 = try #require(FileManager.default.contents(atPath: folder + "/2026-11-02 Tone in MP3 — ünïcode.mp3"))
        let original = try #require(served["mp3"])
        #expect(Self.audio(ofMP3: mp3) == Self.audio(ofMP3: original))
        #expect(podcast.partialFiles().isEmpty, "nothing left behind: \(podcast.partialFiles())")
        // The digest recorded is the tagged file's: verify finds every file intact.
        let verified = try await podcast.run(["verify"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("checked 3 files: 3 intact"), "\(verified.stderr)")
    }

    /// The bytes of an MP3 between its ID3v2 tag (if any) and its ID3v1 tag (if any).
    static func audio(ofMP3 data: Data) -> Data {
        let header = Array(data.prefix(10))
        let hasTag = header.count == 10 && header.starts(with: Array("ID3".utf8))
        let start = hasTag ? 10 + header[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) } + (header[5] & 0x10 != 0 ? 10 : 0) : 0
        let end = data.suffix(128).starts(with: Data("TAG".utf8)) ? data.count - 128 : data.count
        return data.subdata(in: start..<max(start, end))
    }

    /// Tags go into an MP3 in place after its partial file was moved to the name it is placed
    /// from. What a kill -9 right then leaves, made here by hand from a half-downloaded partial
    /// file: that file under a dead process's temporary name, and a record whose partial file is
    /// gone. The next run removes the leftover and fetches the episode again from its first byte
    /// (no served byte is ever appended to a tagged file), and the result is whole and tagged.
    @Test func aKillWhileTagsGoInPlaceMeansTheEpisodeIsFetchedAgainWhole() async throws {
        let server = try LoopbackServer()
        let media = try await LibraryScenario.media(codec: "libmp3lame", fileExtension: "mp3")
        let headers = [("Content-Type", "audio/mpeg"), ("Accept-Ranges", "bytes"), ("ETag", "\"t1\"")]
        server.setRoute("/tone.mp3", .stall(afterBytes: media.count / 2, body: media, headers: headers))
        LibraryScenario.serveFeed([
            LibraryScenario.Item(title: "Tone", guid: "t", date: "Mon, 02 Nov 2026 08:00:00 GMT", enclosure: server.url("/tone.mp3"), length: media.count),
        ], on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        // Half the file on disk, under a record that vouches for it.
        _ = try await podcast.interruptedDownload(["all", "--tag"], once: media.count / 2)
        let partial = try #require(podcast.partialFiles().first).path
        // What the kill leaves: the partial file under the temporary name of a process now gone.
        let gone = try ChildProcess(URL(filePath: "/bin/true"), [])
        #expect(await gone.finish(within: .seconds(10)).status == 0)
        let left = FileIO.folder(of: partial) + "/.podcast-0123456789abcdef.\(gone.pid).tmp"
        #expect(rename(partial, left) == 0)
        server.setRoute("/tone.mp3", .file(body: media, contentType: "audio/mpeg", etag: "\"t1\""))

        let result = try await podcast.run(["download", "all", "--tag"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ResumeScenario.requests(server, path: "/tone.mp3").last?.headers["range"] == nil, "fetched again from its first byte")
        try await Self.expectOneTaggedMP3(titled: "Tone", servedAs: media, in: podcast)
    }

    /// A feed's `podcast:integrity` digest is checked on the bytes as served, then the tags go in:
    /// the digest recorded is the tagged file's, and verify finds it intact.
    @Test func anMP3CheckedAgainstTheFeedsDigestIsTaggedAfterTheCheck() async throws {
        let server = try LoopbackServer()
        let media = try await LibraryScenario.media(codec: "libmp3lame", fileExtension: "mp3")
        let url = server.url("/tone.mp3")
        let integrity = """
            <podcast:alternateEnclosure type="audio/mpeg" length="\(media.count)" default="true">
            <podcast:source uri="\(url)"/><podcast:integrity type="sri" value="sha256-\(LibraryScenario.sha256Base64(media))"/>
            </podcast:alternateEnclosure>
            """
        server.setRoute("/tone.mp3", .file(body: media, contentType: "audio/mpeg", etag: "\"t1\""))
        LibraryScenario.serveFeed([
            LibraryScenario.Item(title: "Checked", guid: "c", date: "Mon, 02 Nov 2026 08:00:00 GMT", enclosure: url, length: media.count, extra: integrity),
        ], on: server)
        let podcast = try await LibraryScenario.listedHome(feedURL: server.url("/feed.xml"))
        let result = try await podcast.run(["download", "all", "--tag"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("untagged"), "\(result.stderr)")
        try await Self.expectOneTaggedMP3(titled: "Checked", servedAs: media, in: podcast)
    }

    /// The home's one episode, `title` of 2 Nov 2026: an MP3 tagged with its title around the
    /// audio of `media` as served, nothing left in the partial folder, and verify finds it intact.
    static func expectOneTaggedMP3(titled title: String, servedAs media: Data, in podcast: PodcastBinary) async throws {
        let path = podcast.episodesDirectory + "/" + LibraryScenario.podcastTitle + "/2026-11-02 \(title).mp3"
        let tagged = try #require(FileManager.default.contents(atPath: path))
        #expect(audio(ofMP3: tagged) == audio(ofMP3: media))
        #expect(try await LibraryScenario.tags(of: path)?["title"] == title)
        #expect(podcast.partialFiles().isEmpty, "\(podcast.partialFiles())")
        let verified = try await podcast.run(["verify"])
        #expect(verified.stderr.contains("checked 1 file: 1 intact"), "\(verified.stderr)")
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
