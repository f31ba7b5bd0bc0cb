import Foundation
import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Testing

/// What the tests of the Episodes directory share: feeds with the details companions and tags
/// need, media made with ffmpeg, tags read back with TagLib, and the files of a folder tree.
enum LibraryScenario {
    /// The show's title in these feeds.
    static let podcastTitle = "Library Show"

    /// One item of a served feed.
    struct Item {
        var title: String
        var guid: String
        /// `Mon, 02 Nov 2026 08:00:00 GMT` and the like.
        var date: String
        var enclosure: String
        var type = "audio/mpeg"
        var length: Int?
        /// Extra elements inside `<item>` (transcripts, chapters, artwork, numbers).
        var extra = ""
    }

    /// Serves `/feed.xml` with `items` (newest first) and the show's `extra` elements.
    static func serveFeed(_ items: [Item], title: String = podcastTitle, extra: String = "", on server: LoopbackServer) {
        let body = items.map { item in
            let length = item.length.map { " length=\"\($0)\"" } ?? ""
            return """
                <item><title>\(item.title)</title><guid>\(item.guid)</guid><pubDate>\(item.date)</pubDate>
                <description>Notes of \(item.title)</description>
                <enclosure url="\(item.enclosure)"\(length) type="\(item.type)"/>\(item.extra)</item>
                """
        }.joined()
        let feed = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">
            <channel><title>\(title)</title><itunes:author>Loop Author</itunes:author>\(extra)\(body)</channel></rss>
            """
        server.setRoute("/feed.xml", .fixed(body: Data(feed.utf8), headers: [("Content-Type", "application/rss+xml")]))
    }

    /// Serves a feed of one episode a day from 2026-11-02 (`bodies` oldest first, titled `titles`,
    /// guids `<guidPrefix><index>`), each at `/<index>.mp3` with an ETag.
    static func serveDaily(_ bodies: [Data], titles: [String], guidPrefix: String, on server: LoopbackServer) {
        var items: [Item] = []
        for (index, body) in bodies.enumerated() {
            server.setRoute("/\(index).mp3", .file(body: body, contentType: "audio/mpeg", etag: "\"\(guidPrefix)\(index)\""))
            items.insert(Item(
                title: titles[index], guid: "\(guidPrefix)\(index)", date: "Mon, 0\(index + 2) Nov 2026 08:00:00 GMT",
                enclosure: server.url("/\(index).mp3"), length: body.count), at: 0)
        }
        serveFeed(items, on: server)
    }

    /// A home that has listed the feed at `feedURL`, with fast retries.
    static func listedHome(feedURL: String, configuration: String = "") async throws -> PodcastBinary {
        try await ResumeScenario.listedHome(feedURL: feedURL, configuration: configuration)
    }

    /// True when ffmpeg can make the media files of the tagging tests.
    static var hasFFmpeg: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") }

    /// Two seconds of a tone encoded by ffmpeg with `codec` into a file named `*.fileExtension`.
    static func media(codec: String, fileExtension: String) async throws -> Data {
        let directory = try TemporaryDirectory(prefix: "media")
        let path = directory.path("tone.\(fileExtension)")
        let process = try ChildProcess(URL(filePath: "/usr/bin/ffmpeg"), [
            "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", codec, "-b:a", "48k", path,
        ])
        let result = await process.finish(within: .seconds(60))
        #expect(result.status == 0, "ffmpeg: \(result.stderr)")
        return try Data(contentsOf: URL(filePath: path))
    }

    /// The tags ffprobe (FFmpeg, a reader independent of the TagLib that wrote them) finds in the
    /// file at `path`, by their common names: title, album, artist, genre, comment, year, track.
    /// Nil when ffprobe cannot read the file.
    static func tags(of path: String) async throws -> [String: String]? {
        let process = try ChildProcess(URL(filePath: "/usr/bin/ffprobe"), [
            "-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "json", path,
        ])
        let result = await process.finish(within: .seconds(60))
        guard result.status == 0, let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            return nil
        }
        // MP3 and MP4 tags are the container's; Ogg's Vorbis comments are the stream's, in capitals.
        var found: [String: String] = [:]
        let streams = json["streams"] as? [[String: Any]] ?? []
        for tags in ([json["format"] as? [String: Any]] + streams).compactMap({ $0?["tags"] as? [String: String] }) {
            for (key, value) in tags { found[key.lowercased()] = value }
        }
        return [
            "title": found["title"], "album": found["album"], "artist": found["artist"], "genre": found["genre"],
            "comment": found["comment"] ?? found["description"],
            "year": found["date"].map { String($0.prefix(4)) },
            "track": (found["track"] ?? found["tracknumber"]).map { String($0.prefix { $0 != "/" }) },
        ].compactMapValues { $0 }
    }

    /// Every regular file under `directory`, as paths relative to it, sorted.
    static func files(under directory: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(relative)
            }
        }
        return files.sorted()
    }

    /// SHA-256 of `data`, lowercase hex.
    static func sha256(_ data: Data) -> String {
        SHA2.hex(sha256Digest(data))
    }

    /// SHA-256 of `data` in base64, as a feed's `podcast:integrity` gives it.
    static func sha256Base64(_ data: Data) -> String {
        Data(sha256Digest(data)).base64EncodedString()
    }

    private static func sha256Digest(_ data: Data) -> [UInt8] {
        var hasher = SHA2(.sha256)
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }
}
