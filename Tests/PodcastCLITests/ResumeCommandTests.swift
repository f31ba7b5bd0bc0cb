import Foundation
import Glibc
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast resume` after an interrupted download: what it asks the server (Range, If-Range) and
/// how it takes each answer (206 append, 200 start over, 416 done or start over), always ending
/// with the server's current file byte for byte.
@Suite(.timeLimit(.minutes(5))) struct ResumeCommandTests {
    private static let path = "/media/r.mp3"
    private static let title = "Resumed"
    private static let size = 600_000
    /// Where the first download is interrupted.
    private static let stopAt = 200_000
    private static let original = ResumeScenario.media(seed: 1, size: size)

    /// A home whose one episode was interrupted by SIGTERM after `stopAt` bytes of `body`, the
    /// first answer carrying `validators`; the server keeps stalling until the test re-routes it.
    private func interrupted(
        on server: LoopbackServer, body: Data = original, validators: [(String, String)] = [("ETag", "\"v1\"")]
    ) async throws -> PodcastBinary {
        ResumeScenario.serveFeed([.init(title: Self.title, path: Self.path, length: body.count)], on: server)
        let headers = [("Content-Type", "audio/mpeg"), ("Accept-Ranges", "bytes")] + validators
        server.setRoute(Self.path, .stall(afterBytes: Self.stopAt, body: body, headers: headers))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        _ = try await podcast.interruptedDownload(["1"], once: Self.stopAt)
        return podcast
    }

    /// The requests `resume` made: every media request after the interrupted first one.
    private func resumeRequests(_ server: LoopbackServer) -> [RecordedRequest] {
        Array(ResumeScenario.requests(server, path: Self.path).dropFirst())
    }

    @Test func resumeFetchesOnlyTheMissingBytes() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        let served = ServedBytes()
        server.setRoute(Self.path, .file(body: Self.original, contentType: "audio/mpeg", etag: "\"v1\"", fault: .none, served: served))

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout) == [Self.title: "downloaded"])
        #expect(podcast.finishedBytes(titled: Self.title) == Self.original)
        let requests = resumeRequests(server)
        #expect(requests.count == 1)
        #expect(requests.first?.header("Range") == ResumeScenario.range(from: Self.stopAt))
        #expect(requests.first?.header("If-Range") == "\"v1\"")
        #expect(served.total == Self.size - Self.stopAt)
        #expect(podcast.partialFiles().isEmpty)
    }

    @Test func resumeTruncatesWhenTheServerIgnoresRange() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        // A server without range support: the whole file with 200, whatever was asked.
        server.setRoute(Self.path, .fixed(body: Self.original, headers: [("Content-Type", "audio/mpeg"), ("ETag", "\"v1\"")]))

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.original)
        #expect(resumeRequests(server).first?.header("Range") == ResumeScenario.range(from: Self.stopAt))
        // One answer was enough: the 200 is taken from byte 0 in the same response.
        #expect(resumeRequests(server).count == 1)
    }

    @Test func resumeStartsOverWhenTheETagChanged() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        let changed = ResumeScenario.media(seed: 2, size: Self.size)
        server.setRoute(Self.path, .file(body: changed, contentType: "audio/mpeg", etag: "\"v2\""))

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == changed)
        let request = try #require(resumeRequests(server).first)
        #expect(request.header("Range") == ResumeScenario.range(from: Self.stopAt))
        #expect(request.header("If-Range") == "\"v1\"")
        #expect(result.stderr.contains("started over"), "\(result.stderr)")
    }

    @Test func weakETagIsNeverSentAndLastModifiedStandsIn() async throws {
        let server = try LoopbackServer()
        let date = "Tue, 10 Nov 2026 08:00:00 GMT"
        let podcast = try await interrupted(on: server, validators: [("ETag", "W/\"weak\""), ("Last-Modified", date)])
        server.setRoute(Self.path, .file(body: Self.original, contentType: "audio/mpeg", etag: "W/\"weak\"", lastModified: date))

        let result = try await podcast.run(["resume"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.original)
        let request = try #require(resumeRequests(server).first)
        #expect(request.header("If-Range") == date)
        #expect(request.header("Range") == ResumeScenario.range(from: Self.stopAt))
    }

    @Test func noValidatorMeansStartingFromByteZero() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server, validators: [])
        server.setRoute(Self.path, .file(body: Self.original, contentType: "audio/mpeg"))

        let result = try await podcast.run(["resume"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.original)
        let requests = resumeRequests(server)
        #expect(!requests.isEmpty)
        #expect(requests.allSatisfy { $0.header("Range") == nil && $0.header("If-Range") == nil })
    }

    @Test func unsatisfiableRangeOverACompletePartialFinishesWithoutRefetching() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        // Every byte arrived but the process died before the rename: the partial is whole.
        let partial = try #require(podcast.partialFiles().first?.path)
        try Self.original.write(to: URL(filePath: partial))
        let store = try podcast.openStore()
        var record = try #require(try store.downloads.all().first { $0.title == Self.title })
        #expect(record.resume.total == Int64(Self.size))
        record.bytes = Int64(Self.size)
        try store.downloads.save(record)
        let served = ServedBytes()
        server.setRoute(Self.path, .file(body: Self.original, contentType: "audio/mpeg", etag: "\"v1\"", fault: .none, served: served))

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ResumeScenario.states(result.stdout) == [Self.title: "downloaded"])
        #expect(podcast.finishedBytes(titled: Self.title) == Self.original)
        #expect(served.total == 0)
        // Asking is allowed (416 bytes */600000 confirms it); fetching again is not.
        let requests = resumeRequests(server)
        #expect(requests.count <= 1)
        #expect(requests.allSatisfy { $0.header("Range") == ResumeScenario.range(from: Self.size) })
        #expect(!result.stderr.contains("started over"))
    }

    @Test func unsatisfiableRangeLongerThanThePartialStartsOver() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        // A broken server: 416 to a range inside the file, claiming the recorded total.
        server.setRoute(Self.path, .handler { request in
            if request.header("Range") != nil {
                return .status(416, headers: [("Content-Range", "bytes */\(Self.size)"), ("ETag", "\"v1\"")])
            }
            return .file(body: Self.original, contentType: "audio/mpeg", etag: "\"v1\"")
        })

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.original)
        #expect(resumeRequests(server).last?.header("Range") == nil)
        #expect(result.stderr.contains("started over"), "\(result.stderr)")
    }

    @Test func unsatisfiableRangeShorterThanThePartialStartsOver() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        // The file shrank below what we hold, under the same (lying) ETag: 416 bytes */150000.
        let shrunk = ResumeScenario.media(seed: 3, size: 150_000)
        server.setRoute(Self.path, .file(body: shrunk, contentType: "audio/mpeg", etag: "\"v1\""))

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == shrunk)
        #expect(resumeRequests(server).first?.header("Range") == ResumeScenario.range(from: Self.stopAt))
        #expect(resumeRequests(server).last?.header("Range") == nil)
        #expect(result.stderr.contains("started over"), "\(result.stderr)")
        // The feed promised 600,000 bytes.
        #expect(result.stderr.contains("warning:"), "\(result.stderr)")
    }

    @Test func unsatisfiableRangeEqualToThePartialButNotTheRecordedTotalStartsOver() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        // Now exactly as long as the partial, but another file: curl and wget would call it done.
        let other = ResumeScenario.media(seed: 4, size: Self.stopAt)
        server.setRoute(Self.path, .file(body: other, contentType: "audio/mpeg", etag: "\"v1\""))

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == other)
        #expect(result.stderr.contains("started over"), "\(result.stderr)")
    }

    @Test func partialContentAtAnotherOffsetOrTotalStartsOver() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        // The ranged answer is 206 but from a file of another length: its bytes cannot continue ours.
        let longer = ResumeScenario.media(seed: 5, size: 700_000)
        server.setRoute(Self.path, .handler { request in
            if request.header("Range") != nil {
                return .fixed(status: 206, body: longer.subdata(in: Self.stopAt..<longer.count), headers: [
                    ("Content-Type", "audio/mpeg"), ("ETag", "\"v1\""),
                    ("Content-Range", "bytes \(Self.stopAt)-\(longer.count - 1)/\(longer.count)"),
                ])
            }
            return .fixed(body: longer, headers: [("Content-Type", "audio/mpeg"), ("ETag", "\"v1\"")])
        })

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == longer)
        #expect(result.stderr.contains("started over"), "\(result.stderr)")
    }

    @Test func partialContentStartingElsewhereStartsOver() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        // 206 from byte 100,000 when we asked for 200,000: appending would duplicate bytes.
        server.setRoute(Self.path, .handler { request in
            if request.header("Range") != nil {
                return .fixed(status: 206, body: Self.original.subdata(in: 100_000..<Self.size), headers: [
                    ("Content-Type", "audio/mpeg"), ("ETag", "\"v1\""),
                    ("Content-Range", "bytes 100000-\(Self.size - 1)/\(Self.size)"),
                ])
            }
            return .fixed(body: Self.original, headers: [("Content-Type", "audio/mpeg"), ("ETag", "\"v1\"")])
        })

        let result = try await podcast.run(["resume"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.original)
        #expect(result.stderr.contains("started over"), "\(result.stderr)")
    }

    @Test func interruptedResumeIsResumedAgainFromWhereItStopped() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        server.setRoute(Self.path, .file(body: Self.original, contentType: "audio/mpeg", etag: "\"v1\"", fault: .stall(afterBytes: 150_000)))
        let resuming = try podcast.start(["resume"])
        let reached = try await ResumeScenario.wait { podcast.partialFiles().first?.size ?? 0 >= Self.stopAt + 150_000 }
        #expect(reached)
        kill(resuming.pid, SIGTERM)
        let stopped = await resuming.finish(within: .seconds(20))
        #expect(stopped.status == 130, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("podcast resume"), "\(stopped.stderr)")
        server.setRoute(Self.path, .file(body: Self.original, contentType: "audio/mpeg", etag: "\"v1\""))

        let result = try await podcast.run(["resume", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(podcast.finishedBytes(titled: Self.title) == Self.original)
        #expect(resumeRequests(server).last?.header("Range") == ResumeScenario.range(from: Self.stopAt + 150_000))
    }

    @Test(arguments: [["resume", "1"], ["resume", "all"], ["resume", "--retries", "0"], ["resume", "--concurrency", "0"], ["resume", "--stall-timeout", "0"], ["resume", "--limit-rate", "fast"]])
    func resumeTakesNoSelectionAndChecksTheDownloadOptions(arguments: [String]) async throws {
        let podcast = try PodcastBinary()
        let result = try await podcast.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
    }

    @Test func resumeWithNothingUnfinishedDoesNothing() async throws {
        let server = try LoopbackServer()
        ResumeScenario.serveFeed([.init(title: Self.title, path: Self.path, length: Self.size)], on: server)
        server.setRoute(Self.path, .file(body: Self.original, contentType: "audio/mpeg", etag: "\"v1\""))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))

        let before = try await podcast.run(["resume", "--json"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(ResumeScenario.results(before.stdout).isEmpty)
        #expect(try await podcast.run(["download", "1"]).status == 0)
        let after = try await podcast.run(["resume", "--json"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(!ResumeScenario.results(after.stdout).contains { $0["state"] as? String == "downloaded" })
        #expect(ResumeScenario.requests(server, path: Self.path).count == 1)
    }

    /// A partial file no record names (a lost or reset store) can never be continued: the next
    /// batch removes it and says so; the episode's own partial file is kept and continued.
    @Test func partialFilesNoRecordNamesAreRemoved() async throws {
        let server = try LoopbackServer()
        let podcast = try await interrupted(on: server)
        let orphan = podcast.episodesDirectory + "/.partial/0123456789abcdef.part"
        try Data(repeating: 1, count: 5_000).write(to: URL(filePath: orphan))
        var old = [timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, orphan, &old, 0) == 0)
        server.setRoute(Self.path, .file(body: Self.original, contentType: "audio/mpeg", etag: "\"v1\"", fault: .none))

        let result = try await podcast.run(["resume"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains { $0.hasPrefix("note: removed 1 partial file no download can continue (4.9 KiB)") }, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(podcast.finishedBytes(titled: Self.title) == Self.original)
        #expect(resumeRequests(server).first?.header("Range") == ResumeScenario.range(from: Self.stopAt))
    }

}
