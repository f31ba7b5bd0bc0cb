import Foundation
import Glibc
import PodcastTestSupport
import Testing

/// The store's `-shm` file made unwritable under a running worker (issue 32, item 7): SQLite's
/// mapping of it raises SIGBUS, which podcast turns into one line in the worker's log; nothing
/// recorded is lost, and `podcast resume` finishes the episode once the file is writable again.
@Suite(.timeLimit(.minutes(5))) struct StoreFaultTests {
    /// Marks `path` immutable (`chattr +i`) or not; false where that cannot be done (not root,
    /// a file system without the flag, no chattr).
    private static func setImmutable(_ path: String, _ immutable: Bool) async throws -> Bool {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr") else { return false }
        let chattr = try ChildProcess(URL(fileURLWithPath: "/usr/bin/chattr"), [immutable ? "+i" : "-i", path], environment: ["PATH": "/usr/bin:/bin"])
        return await chattr.finish(within: .seconds(30)).status == 0
    }

    @Test func anImmutableSharedMemoryFileStopsTheWorkerWithOneLineAndResumeFinishes() async throws {
        let server = try LoopbackServer()
        // Each held attempt gains 80 kB (progress: retried at once), so the worker writes its
        // progress to the store every second until the gate opens.
        let episode = BackgroundScenario.show(count: 1, size: 16_000_000, stallAfter: 80_000, on: server)[0]
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "stall-timeout = 1\n")
        let guardian = WorkerGuard(podcast)
        #expect(try await podcast.run(["download", "1", "--background"]).status == 0)
        let worker = try #require(BackgroundScenario.workerPID(podcast))
        _ = try await BackgroundScenario.waitForStatus(podcast) { status in
            (BackgroundScenario.downloads(status)[episode.title]?["bytes"] as? Int ?? 0) >= 80_000
        }
        let shm = podcast.stateDirectory + "/state.sqlite-shm"
        guard try await Self.setImmutable(shm, true) else {
            print("skipped: \(shm) cannot be made immutable here (needs root, chattr and a file system with the flag)")
            return
        }
        // Whatever fails below, the home must stay removable.
        defer { _ = Glibc.system("/usr/bin/chattr -f -i '\(shm)' 2>/dev/null") }
        // Written back, the mapped pages are write-protected again: the worker's next write faults.
        sync()
        #expect(try await ResumeScenario.wait(upTo: .seconds(60)) { kill(worker, 0) != 0 && !BackgroundScenario.workerRuns(podcast) })
        let log = String(decoding: FileManager.default.contents(atPath: podcast.stateDirectory + "/worker.log") ?? Data(), as: UTF8.self)
        let line = "error: the store's shared memory file \(shm) could not be written (SIGBUS)"
        #expect(log.contains(line), "worker log: \(log)")

        #expect(try await Self.setImmutable(shm, false))
        episode.gate.open()
        let resumed = try await podcast.run(["resume", "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(ResumeScenario.states(resumed.stdout)[episode.title] == "downloaded")
        #expect(BackgroundScenario.sha256(finished: episode, in: podcast) == BackgroundScenario.sha256(episode.body))
        _ = guardian
    }
}
