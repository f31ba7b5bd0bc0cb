import Foundation
import PodcastKit
import PodcastTestSupport
import Synchronization
import Testing

/// What the resume, resilience, torture and disk-full tests share: media bodies, a feed on a
/// loopback server, a podcast run started in the background, bounded polling, and the results.
enum ResumeScenario {
    /// The podcast title of every feed served here (and so the folder name).
    static let podcastTitle = "Resume Show"

    /// `size` bytes unique to `seed`, cheap to make in a debug build: a pseudo-random block of
    /// 65,521 bytes (a prime, so no power-of-two offset lines up with it) repeated, with the
    /// offset stamped into every 4 KiB, so bytes written at a wrong offset never look right.
    static func media(seed: UInt64, size: Int) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var block = [UInt8](repeating: 0, count: 65_521)
        for index in stride(from: 0, to: block.count - 7, by: 8) {
            // xorshift64*
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            withUnsafeBytes(of: (state &* 0x2545_F491_4F6C_DD1D).littleEndian) { word in
                block.replaceSubrange(index..<index + 8, with: word)
            }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(size)
        while bytes.count < size {
            bytes += block.prefix(size - bytes.count)
        }
        for offset in stride(from: 0, to: size - 8, by: 4096) {
            withUnsafeBytes(of: UInt64(offset).littleEndian) { word in
                bytes.replaceSubrange(offset..<offset + 8, with: word)
            }
        }
        return Data(bytes)
    }

    /// One episode of a served feed.
    struct Episode {
        /// Its title (the file name's second half).
        var title: String
        /// The enclosure's path on the server.
        var path: String
        /// What the feed says the enclosure's length is (nil: no length attribute).
        var length: Int?
    }

    /// Serves `/feed.xml` listing `episodes`, newest last in the array; episode i is published
    /// on 2026-11-10, i minutes after midnight. The media routes are the caller's.
    static func serveFeed(_ episodes: [Episode], on server: LoopbackServer) {
        let items = episodes.enumerated().map { index, episode in
            let length = episode.length.map { " length=\"\($0)\"" } ?? ""
            return """
                <item><title>\(episode.title)</title><guid>g-\(index + 1)</guid>
                <pubDate>\(publicationDate(index))</pubDate>
                <enclosure url="\(episode.path)"\(length) type="audio/mpeg"/></item>
                """
        }
        server.setRoute("/feed.xml", .fixed(body: Data("<rss><channel><title>\(podcastTitle)</title>\(items.joined())</channel></rss>".utf8)))
    }

    /// The RFC 822 date of the episode at `index`: a minute after the one before it, so the
    /// listing (newest first) is the feed in reverse, for up to 1,440 episodes.
    private static func publicationDate(_ index: Int) -> String {
        let (hour, minute) = (index / 60, index % 60)
        return "Tue, 10 Nov 2026 \(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute):00 GMT"
    }

    /// A home for `podcast`, with fast retries (`retry-wait`) and any `extra` configuration lines,
    /// that has listed the feed at `feedURL`.
    static func listedHome(feedURL: String, configuration extra: String = "") async throws -> PodcastBinary {
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("retry-wait = 0.05\n" + extra)
        let listed = try await podcast.run(["episodes", feedURL])
        #expect(listed.status == 0, "podcast episodes: \(listed.stderr)")
        return podcast
    }

    /// The `results` array of a `download`/`resume --json` document (empty when stdout is not one).
    static func results(_ stdout: String) -> [[String: Any]] {
        guard let document = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else { return [] }
        return document["results"] as? [[String: Any]] ?? []
    }

    /// `state` of each result, keyed by title.
    static func states(_ stdout: String) -> [String: String] {
        Dictionary(results(stdout).map { ($0["title"] as? String ?? "", $0["state"] as? String ?? "") }) { first, _ in first }
    }

    /// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
    @discardableResult
    static func wait(upTo timeout: Duration = .seconds(20), until condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// The requests `server` received for `path`, in arrival order.
    static func requests(_ server: LoopbackServer, path: String) -> [RecordedRequest] {
        server.requests.filter { $0.path == path }
    }

    /// `bytes=N-` for `offset`.
    static func range(from offset: Int) -> String { "bytes=\(offset)-" }
}

extension PodcastBinary {
    /// The environment every run gets (as `run` builds it).
    var runEnvironment: [String: String] {
        var environment = [
            "PATH": "/usr/bin:/bin",
            "HOME": home.path,
            "PODCAST_HOME": stateDirectory,
            "XDG_CONFIG_HOME": home.path(".config"),
        ]
        environment.merge(self.environment) { $1 }
        return environment
    }

    /// Starts `podcast arguments…` without waiting for it.
    func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(builtExecutable(named: "podcast"), arguments, environment: runEnvironment)
    }

    /// Writes the configuration file every run reads.
    func writeConfiguration(_ text: String) throws {
        try text.write(toFile: configFile, atomically: true, encoding: .utf8)
    }

    /// The default Episodes directory.
    var episodesDirectory: String { stateDirectory + "/Episodes" }

    /// The partial files in `<episodes>/.partial` with their sizes.
    func partialFiles(in episodes: String? = nil) -> [(path: String, size: Int)] {
        let directory = (episodes ?? episodesDirectory) + "/.partial"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().compactMap { name in
            let path = directory + "/" + name
            guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else { return nil }
            return (path, size)
        }
    }

    /// The finished file whose name ends with `title` and an extension, in the show's folder.
    func finishedFile(titled title: String, in episodes: String? = nil) -> String? {
        let folder = (episodes ?? episodesDirectory) + "/" + ResumeScenario.podcastTitle
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.first { ($0 as NSString).deletingPathExtension.hasSuffix(" " + title) || ($0 as NSString).deletingPathExtension == title }
            .map { folder + "/" + $0 }
    }

    /// The bytes of the finished episode `title`, or nil when there is no such file.
    func finishedBytes(titled title: String, in episodes: String? = nil) -> Data? {
        finishedFile(titled: title, in: episodes).flatMap { FileManager.default.contents(atPath: $0) }
    }

    /// The state store of this home, opened in the test's process.
    func openStore() throws -> StateStore {
        try StateStore(path: stateDirectory + "/state.sqlite")
    }

    /// Starts `download arguments…` against an episode whose answer stalls, waits until the
    /// partial files hold `bytes` bytes in all (bounded), then sends SIGTERM: the interrupted
    /// download a resume test starts from. Returns the interrupted run.
    func interruptedDownload(_ arguments: [String], once partialBytes: Int) async throws -> ChildProcess.Result {
        let download = try start(["download"] + arguments)
        let reached = try await ResumeScenario.wait {
            partialFiles().reduce(0) { $0 + $1.size } >= partialBytes
        }
        #expect(reached, "the partial files never reached \(partialBytes) bytes: \(partialFiles())")
        kill(download.pid, SIGTERM)
        let result = await download.finish(within: .seconds(20))
        #expect(result.status == 130, "interrupted download: \(result.stderr)")
        return result
    }
}

/// When each request for a route arrived, for asserting back-off waits.
final class ArrivalTimes: Sendable {
    private let times = Mutex<[ContinuousClock.Instant]>([])

    /// `route` answering as before, with each request's arrival noted first.
    func noting(_ route: ServerRoute) -> ServerRoute {
        .handler { [self] _ in
            times.withLock { $0.append(.now) }
            return route
        }
    }

    /// The arrival instants so far.
    var instants: [ContinuousClock.Instant] { times.withLock { $0 } }
}
