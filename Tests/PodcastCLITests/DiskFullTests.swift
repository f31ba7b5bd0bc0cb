import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// A full disk stops the queue with one clear error, keeps the partials and their records, and
/// `podcast resume` finishes every file byte for byte once there is room again.
///
/// Two ways to fill a disk: a small tmpfs in a private mount namespace (a real ENOSPC, when
/// unprivileged user namespaces are allowed here), and RLIMIT_FSIZE (EFBIG, which podcast must
/// treat alike and whose SIGXFSZ it must ignore), which works everywhere.
@Suite(.timeLimit(.minutes(5))) struct DiskFullTests {
    private static let size = 1_500_000
    private static let episodes = (1...3).map {
        (title: "Big \($0)", path: "/media/big\($0).mp3", body: ResumeScenario.media(seed: UInt64(50 + $0), size: size))
    }

    /// True when `unshare --user --map-root-user --mount` can mount a tmpfs here.
    static let tmpfsInNamespaceWorks: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
              let probe = try? TemporaryDirectory(prefix: "tmpfs-probe")
        else { return false }
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/unshare")
        process.arguments = ["--user", "--map-root-user", "--mount", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs '\(probe.path)'"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    private func show(on server: LoopbackServer) async throws -> PodcastBinary {
        // No length in the feed, nor in the server's first answer (chunked): an episode of known
        // size that cannot fit would wait, paused, before its first byte (min-free-space, checked
        // again on the server's length); these tests are about a disk that fills mid-transfer.
        // Ranges are answered as usual, so the partial files are continued.
        ResumeScenario.serveFeed(Self.episodes.map { .init(title: $0.title, path: $0.path, length: nil) }, on: server)
        for (index, episode) in Self.episodes.enumerated() {
            let etag = "\"big\(index)\""
            let file = ServerRoute.file(body: episode.body, contentType: "audio/mpeg", etag: etag)
            let pieces = stride(from: 0, to: episode.body.count, by: 64 * 1024).map { episode.body[$0..<min($0 + 64 * 1024, episode.body.count)] }
            let unsized = ServerRoute.chunked(chunks: pieces, headers: [("Content-Type", "audio/mpeg"), ("ETag", etag)])
            server.setRoute(episode.path, .handler { request in request.header("Range") == nil ? unsized : file })
        }
        return try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
    }

    /// The one error line about the full disk, and nothing else reported as an error.
    private func expectOneDiskError(_ stderr: String) {
        let errors = stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        #expect(errors.count == 1, "\(stderr)")
        let line = errors.first?.lowercased() ?? ""
        #expect(line.contains("disk") || line.contains("space") || line.contains("full") || line.contains("file size limit"), "\(stderr)")
    }

    /// What the records say after the stop: nothing finished, nothing lost.
    private func expectRecordsKept(_ podcast: PodcastBinary) throws {
        let records = try podcast.openStore().downloads.all()
        #expect(records.allSatisfy { $0.state != .downloaded && $0.state != .downloading })
        #expect(records.contains { $0.bytes > 0 })
    }

    @Test func fileSizeLimitStopsTheQueueAndResumeFinishesLater() async throws {
        let server = try LoopbackServer()
        let podcast = try await show(on: server)
        // 1 MiB per file (512-byte blocks): each partial hits EFBIG a third of the way short.
        let limited = try ChildProcess(URL(filePath: "/bin/sh"), [
            "-c", "ulimit -f 2048 && exec \"$0\" download all --json", builtExecutable(named: "podcast").path,
        ], environment: podcast.runEnvironment)
        let full = await limited.finish(within: .seconds(60))

        #expect(full.status == 1, "status \(full.status) (25 is SIGXFSZ, which podcast must ignore): \(full.stderr)")
        expectOneDiskError(full.stderr)
        #expect(!ResumeScenario.states(full.stdout).values.contains("downloaded"))
        for episode in Self.episodes {
            #expect(podcast.finishedFile(titled: episode.title) == nil)
        }
        #expect(podcast.partialFiles().contains { $0.size > 0 && $0.size <= 1_048_576 }, "\(podcast.partialFiles())")
        try expectRecordsKept(podcast)

        let resumed = try await podcast.run(["resume", "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        for episode in Self.episodes {
            #expect(podcast.finishedBytes(titled: episode.title) == episode.body, "\(episode.title)")
        }
        // The partials were continued: later requests carry Range.
        #expect(server.requests.contains { $0.path.hasPrefix("/media/") && $0.header("Range") != nil })
    }

    @Test(.enabled(if: tmpfsInNamespaceWorks, "unprivileged user and mount namespaces are not allowed here: the RLIMIT_FSIZE test covers the behaviour"))
    func fullTmpfsStopsTheQueueAndResumeFinishesAfterSpaceIsFreed() async throws {
        let server = try LoopbackServer()
        let podcast = try await show(on: server)
        let mountPoint = try TemporaryDirectory(prefix: "tmpfs-episodes")
        let out = try TemporaryDirectory(prefix: "tmpfs-out")
        // Everything happens in one namespace, since the tmpfs dies with it: fill it so that
        // about 1.2 MiB is left, download (disk full), free the filler, resume, copy out.
        let script = """
            set -u
            dir="$1"; out="$2"; podcast="$3"
            mount -t tmpfs -o size=6m tmpfs "$dir" || exit 97
            head -c 5000000 /dev/zero > "$dir/filler" || exit 98
            "$podcast" download all --json --episodes-dir "$dir" > "$out/download.json" 2> "$out/download.err"
            echo $? > "$out/download.status"
            mkdir "$out/partials"
            for part in "$dir"/.partial/*; do [ -e "$part" ] && stat -c '%s' "$part" >> "$out/partials/sizes"; done
            rm "$dir/filler"
            "$podcast" resume --json --episodes-dir "$dir" --min-free-space 1k > "$out/resume.json" 2> "$out/resume.err"
            echo $? > "$out/resume.status"
            cp -R "$dir/." "$out/episodes"
            """
        let run = try ChildProcess(URL(filePath: "/usr/bin/unshare"), [
            "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", mountPoint.path, out.path,
            builtExecutable(named: "podcast").path,
        ], environment: podcast.runEnvironment)
        let finished = await run.finish(within: .seconds(90))
        #expect(finished.status == 0, "namespace script: \(finished.status) \(finished.stderr)")
        func read(_ name: String) -> String {
            (try? String(contentsOfFile: out.path(name), encoding: .utf8)) ?? ""
        }

        #expect(read("download.status").trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(read("download.err"))")
        expectOneDiskError(read("download.err"))
        #expect(!ResumeScenario.states(read("download.json")).values.contains("downloaded"), "\(read("download.json"))")
        let sizes = read("partials/sizes").split(separator: "\n").compactMap { Int($0) }
        #expect(sizes.contains { $0 > 0 }, "partials after the stop: \(sizes)")
        #expect(read("resume.status").trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(read("resume.err"))")
        for episode in Self.episodes {
            #expect(podcast.finishedBytes(titled: episode.title, in: out.path("episodes")) == episode.body, "\(episode.title)")
        }
    }
}
