import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// The built `podcast` binary against servers that break the rules on purpose: a changed file
/// served as the rest of the old one, answers that never get anywhere, bodies without end, a
/// gzip bomb, a download dir the resume must keep, and an owner that is dead but not reaped.
/// Each test asserts the exit code and the bytes on disk, and bounds every wait.
@Suite(.serialized, .timeLimit(.minutes(5))) struct HostileServerTests {
    private static let title = "Hostile"
    private static let path = "/media/hostile.mp3"
    /// Every run of these tests ends within this (the child is killed past it).
    private static let bound = Duration.seconds(25)

    // MARK: Helpers

    /// A home that has listed a one-episode feed (enclosure `length` as given) served with `route`,
    /// its configuration file then holding exactly `configuration` when given.
    private func home(_ route: ServerRoute, on server: LoopbackServer, length: Int?, configuration: String? = nil) async throws -> PodcastBinary {
        ResumeScenario.serveFeed([.init(title: Self.title, path: Self.path, length: length)], on: server)
        server.setRoute(Self.path, route)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        if let configuration { try podcast.writeConfiguration(configuration) }
        return podcast
    }

    /// Runs `podcast arguments…` to its end or `bound`, and how long it took.
    private func run(_ podcast: PodcastBinary, _ arguments: [String]) async throws -> (result: ChildProcess.Result, took: Duration) {
        let started = ContinuousClock.now
        let result = await (try podcast.start(arguments)).finish(within: Self.bound)
        return (result, ContinuousClock.now - started)
    }

    /// Starts `podcast arguments…`, waits (bounded) until the partial files in `episodes` hold
    /// `bytes`, then interrupts it with SIGINT, as Ctrl-C would: it must exit 130.
    private func interrupt(_ podcast: PodcastBinary, _ arguments: [String], once bytes: Int, episodes: String? = nil) async throws {
        let download = try podcast.start(arguments)
        let reached = try await ResumeScenario.wait(upTo: .seconds(15)) {
            podcast.partialFiles(in: episodes).reduce(0) { $0 + $1.size } >= bytes
        }
        #expect(reached, "the partial files never reached \(bytes) bytes: \(podcast.partialFiles(in: episodes))")
        kill(download.pid, SIGINT)
        let result = await download.finish(within: .seconds(15))
        #expect(result.status == 130, "interrupted run: \(result.stderr)")
    }

    /// The stderr lines that contain every one of `words`.
    private func lines(_ result: ChildProcess.Result, containing words: String...) -> [String] {
        result.stderrLines.filter { line in words.allSatisfy { line.contains($0) } }
    }

    /// The names in the show's folder of `episodes` (default: the home's Episodes directory).
    private func showFolder(_ podcast: PodcastBinary, episodes: String? = nil) -> [String] {
        let folder = (episodes ?? podcast.episodesDirectory) + "/" + ResumeScenario.podcastTitle
        return (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    }

    private static let audio = [("Content-Type", "audio/mpeg")]

    // MARK: 1. Splice of two versions

    /// The file changes (ETag "v1" → "v2") and the server answers the resume's Range with a 206 of the new file, ignoring If-Range: resume must start over and end with the new file, never a splice.
    @Test func changedETagUnderAnIgnoredIfRangeStartsOverInsteadOfSplicing() async throws {
        try await changedFileStartsOver(old: [("ETag", "\"v1\"")], new: { .ignoringIfRange(body: $0, etag: "\"v2\"") })
    }

    /// The same with Last-Modified as the only validator (a later date on the 206 of the changed file): resume must start over and end with the new file.
    @Test func changedLastModifiedUnderAnIgnoredIfRangeStartsOverInsteadOfSplicing() async throws {
        try await changedFileStartsOver(
            old: [("Last-Modified", "Tue, 10 Nov 2026 08:00:00 GMT")],
            new: { .ignoringIfRange(body: $0, lastModified: "Wed, 11 Nov 2026 09:30:00 GMT") })
    }

    private func changedFileStartsOver(old validators: [(String, String)], new route: (Data) -> ServerRoute) async throws {
        let (size, stopAt) = (600_000, 200_000)
        let original = ResumeScenario.media(seed: 61, size: size)
        // Same length: only the validator tells the versions apart.
        let changed = ResumeScenario.media(seed: 62, size: size)
        let server = try LoopbackServer()
        let stalling = ServerRoute.stall(afterBytes: stopAt, body: original, headers: Self.audio + [("Accept-Ranges", "bytes")] + validators)
        let podcast = try await home(stalling, on: server, length: size)
        try await interrupt(podcast, ["download", "1"], once: stopAt)
        server.setRoute(Self.path, route(changed))

        let (result, _) = try await run(podcast, ["resume"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.timedOut)
        let finished = podcast.finishedBytes(titled: Self.title)
        #expect(finished == changed, "finished file: \(finished.map { "\($0.count) bytes, old prefix: \($0.prefix(stopAt) == original.prefix(stopAt))" } ?? "none")")
        #expect(!lines(result, containing: "started over", "changed").isEmpty, "\(result.stderr)")
        let resumed = ResumeScenario.requests(server, path: Self.path).dropFirst()
        #expect(resumed.first?.header("Range") == ResumeScenario.range(from: stopAt))
        #expect(resumed.dropFirst().contains { $0.header("Range") == nil }, "no refetch from byte 0: \(resumed.map { $0.header("Range") ?? "-" })")
        #expect(podcast.partialFiles().isEmpty)
    }

    // MARK: 2. Retry loops end

    /// Every answer is a 200 promising 100,000 bytes that closes after 50,000, Range or not: with retries = 3 the episode must give up after a few requests, keeping no file.
    @Test func fullAnswerCutShortEveryTimeGivesUp() async throws {
        let body = ResumeScenario.media(seed: 63, size: 100_000)
        let cut = ServerRoute.cut(afterBytes: 50_000, body: body, headers: Self.audio + [("ETag", "\"c1\""), ("Accept-Ranges", "bytes")])
        try await givesUp(cut, length: body.count, configuration: "retries = 3\nretry-wait = 0.1\n", most: 3 + 2)
    }

    /// Every answer is a chunked body whose second chunk-size line is garbage (`zz`): with retries = 3 the episode must give up after a few requests.
    @Test func garbageChunkSizeEveryTimeGivesUp() async throws {
        let garbage = ServerRoute.garbageChunked(valid: ResumeScenario.media(seed: 64, size: 10_000), headers: [("ETag", "\"g1\"")])
        try await givesUp(garbage, length: 100_000, configuration: "retries = 3\nretry-wait = 0.1\n", most: 3 + 2)
    }

    /// The server honours Range but sends one byte a second: with a 3-second retry budget the episode must give up within seconds after a bounded number of requests.
    @Test func oneBytePerSecondGivesUpWithinTheRetryBudget() async throws {
        let body = ResumeScenario.media(seed: 65, size: 100_000)
        let trickle = ServerRoute.file(body: body, contentType: "audio/mpeg", etag: "\"t1\"", fault: .paced(chunkSize: 1, interval: .seconds(1)))
        try await givesUp(trickle, length: body.count, configuration: "retry-budget = 3\nretry-wait = 0.1\nstall-timeout = 1\n", most: 10, within: .seconds(20))
    }

    private func givesUp(_ route: ServerRoute, length: Int, configuration: String, most: Int, within limit: Duration = .seconds(20)) async throws {
        let server = try LoopbackServer()
        let podcast = try await home(route, on: server, length: length, configuration: configuration)

        let (result, took) = try await run(podcast, ["download", "1"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.timedOut, "still retrying after \(Self.bound)")
        #expect(took < limit, "took \(took)")
        let count = ResumeScenario.requests(server, path: Self.path).count
        #expect((1...most).contains(count), "\(count) requests")
        #expect(showFolder(podcast).isEmpty, "\(showFolder(podcast))")
        #expect(!lines(result, containing: "gave up").isEmpty, "\(result.stderr)")
    }

    // MARK: 3. Size cap

    /// A 200 with no length whose body never ends, for a 1,000-byte enclosure: the download must be stopped far short (under 100 MB sent), fail, and keep nothing.
    @Test func endlessBodyIsStoppedAndNothingKept() async throws {
        let server = try LoopbackServer()
        let served = ServedBytes()
        let podcast = try await home(.endless(limit: 200_000_000, served: served), on: server, length: 1000)

        let (result, _) = try await run(podcast, ["download", "1"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.timedOut)
        #expect(!lines(result, containing: "far more than").isEmpty, "\(result.stderr)")
        #expect(showFolder(podcast).isEmpty, "\(showFolder(podcast))")
        #expect(podcast.partialFiles().isEmpty, "\(podcast.partialFiles())")
        #expect(served.total < 100_000_000, "the server sent \(served.total) bytes")
    }

    /// A 2,000,000-byte file with its Content-Length under `--max-size 1M`: the download must fail naming max-episode-size and keep nothing.
    @Test func maxSizeOptionStopsALargerFile() async throws {
        try await maxSizeStops(arguments: ["--max-size", "1M"], configuration: nil)
    }

    /// The same file under `max-episode-size = "1M"` in the configuration file: the same failure, nothing kept.
    @Test func maxEpisodeSizeInTheConfigurationFileStopsALargerFile() async throws {
        try await maxSizeStops(arguments: [], configuration: "retry-wait = 0.05\nmax-episode-size = \"1M\"\n")
    }

    private static let large = ResumeScenario.media(seed: 66, size: 2_000_000)

    private func maxSizeStops(arguments: [String], configuration: String?) async throws {
        let server = try LoopbackServer()
        let file = ServerRoute.file(body: Self.large, contentType: "audio/mpeg", etag: "\"l1\"")
        let podcast = try await home(file, on: server, length: Self.large.count, configuration: configuration)

        let (result, _) = try await run(podcast, ["download", "1"] + arguments)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!lines(result, containing: "max-episode-size").isEmpty, "\(result.stderr)")
        #expect(showFolder(podcast).isEmpty, "\(showFolder(podcast))")
        #expect(podcast.partialFiles().isEmpty, "\(podcast.partialFiles())")
    }

    /// The same file under `--max-size 4M` must download whole.
    @Test func maxSizeAboveTheFileLetsItThrough() async throws {
        let server = try LoopbackServer()
        let podcast = try await home(.file(body: Self.large, contentType: "audio/mpeg", etag: "\"l1\""), on: server, length: Self.large.count)

        let (result, _) = try await run(podcast, ["download", "1", "--max-size", "4M"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.large)
    }

    /// `--max-size banana` must be a usage error about --max-size: exit 64, one `error:` line.
    @Test func maxSizeThatIsNotASizeIsAUsageError() async throws {
        let podcast = try PodcastBinary()
        let (result, _) = try await run(podcast, ["download", "1", "--max-size", "banana"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        let line = result.stderrLines.first ?? ""
        #expect(line.hasPrefix("error:") && line.contains("--max-size"), "\(result.stderr)")
    }

    /// Asked for identity, the server sends `Content-Encoding: gzip` anyway, 200 KB (its Content-Length) that decode to 200 MB of zeros: stopped far short, failed, nothing kept.
    @Test func gzipBombIsStoppedAndNothingKept() async throws {
        let server = try LoopbackServer()
        // No feed length: the compressed Content-Length is the only length there is.
        let podcast = try await home(.gzipBomb(decodedSize: 200 * 1024 * 1024), on: server, length: nil)

        let (result, _) = try await run(podcast, ["download", "1"])
        #expect(ResumeScenario.requests(server, path: Self.path).first?.header("Accept-Encoding") == "identity")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.timedOut)
        #expect(!lines(result, containing: "far more than").isEmpty, "\(result.stderr)")
        #expect(showFolder(podcast).isEmpty, "\(showFolder(podcast))")
        #expect(podcast.partialFiles().isEmpty, "\(podcast.partialFiles())")
    }

    // MARK: 4. Resume keeps the destination

    /// A download into `--episodes-dir DIR` is interrupted: `podcast resume` without the option must continue it with a Range and finish it in DIR, leaving DIR/.partial empty.
    @Test func resumeFinishesInTheEpisodesDirectoryTheDownloadStartedIn() async throws {
        let (size, stopAt) = (600_000, 200_000)
        let body = ResumeScenario.media(seed: 67, size: size)
        let server = try LoopbackServer()
        let headers = Self.audio + [("Accept-Ranges", "bytes"), ("ETag", "\"d1\"")]
        let podcast = try await home(.stall(afterBytes: stopAt, body: body, headers: headers), on: server, length: size)
        let elsewhere = try TemporaryDirectory(prefix: "hostile-episodes")
        try await interrupt(podcast, ["download", "1", "--episodes-dir", elsewhere.path], once: stopAt, episodes: elsewhere.path)
        server.setRoute(Self.path, .file(body: body, contentType: "audio/mpeg", etag: "\"d1\""))

        let (result, _) = try await run(podcast, ["resume"])
        #expect(result.status == 0, "\(result.stderr)")
        let requests = ResumeScenario.requests(server, path: Self.path)
        #expect(requests.count == 2, "\(requests.map { $0.header("Range") ?? "-" })")
        #expect(requests.dropFirst().first?.header("Range") == ResumeScenario.range(from: stopAt))
        #expect(podcast.finishedBytes(titled: Self.title, in: elsewhere.path) == body, "in \(elsewhere.path): \(showFolder(podcast, episodes: elsewhere.path))")
        #expect(podcast.finishedFile(titled: Self.title) == nil, "finished in the default Episodes directory instead")
        #expect(podcast.partialFiles(in: elsewhere.path).isEmpty, "\(podcast.partialFiles(in: elsewhere.path))")
    }

    // MARK: 5. A zombie is not alive

    /// The owning `podcast download` is SIGKILLed and never reaped (a zombie): `resume`, or `download 1`, must take its download over and finish the file while the zombie remains.
    @Test(arguments: [["resume"], ["download", "1"]])
    func downloadOwnedByAZombieIsTakenOver(command: [String]) async throws {
        let (size, stopAt) = (600_000, 100_000)
        let body = ResumeScenario.media(seed: 68, size: size)
        let server = try LoopbackServer()
        let headers = Self.audio + [("Accept-Ranges", "bytes"), ("ETag", "\"z1\"")]
        let podcast = try await home(.stall(afterBytes: stopAt, body: body, headers: headers), on: server, length: size)
        let owner = try UnreapedProcess(builtExecutable(named: "podcast"), ["download", "1"], environment: podcast.runEnvironment)
        defer { owner.reap() }
        // Bytes on disk, and a record that says this process is downloading them.
        let store = try podcast.openStore()
        let reached = try await ResumeScenario.wait(upTo: .seconds(15)) {
            guard podcast.partialFiles().reduce(0, { $0 + $1.size }) >= stopAt else { return false }
            let record = try? store.downloads.all().first { $0.title == Self.title }
            return record?.state == .downloading && record?.owner?.pid == owner.pid
        }
        #expect(reached, "the first download never wrote \(stopAt) bytes under a downloading record: \(owner.stderr)")
        kill(owner.pid, SIGKILL)
        #expect(try await owner.waitUntilZombie(), "state \(owner.state.map(String.init) ?? "gone")")
        server.setRoute(Self.path, .file(body: body, contentType: "audio/mpeg", etag: "\"z1\""))

        let (result, _) = try await run(podcast, command)
        #expect(owner.state == "Z", "the owner must still be a zombie")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("nothing to resume"), "\(result.stderr)")
        #expect(!result.stderr.contains("being downloaded by process"), "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == body)
        #expect(podcast.partialFiles().isEmpty, "\(podcast.partialFiles())")
    }
}
