import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast download --background`: a detached worker that outlives its launcher and terminal,
/// one per home, that finishes batches and runs their `--on-complete`.
@Suite(.timeLimit(.minutes(5))) struct BackgroundWorkerTests {
    @Test func backgroundBatchReturnsAtOnceAndDownloadsEveryEpisodeByteIdentical() async throws {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 3, size: 400_000, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: Self.held(stallTimeout: 1))
        let guardian = WorkerGuard(podcast)

        let launched = try await podcast.run(["download", "all", "--background"])
        #expect(launched.status == 0, "\(launched.stderr)")
        #expect(launched.stderr.contains("queued 3 episodes"))
        #expect(launched.stderr.contains("podcast status --watch"))
        // The server holds every answer back: the launcher returned without waiting for them.
        #expect(episodes.allSatisfy { podcast.finishedFile(titled: $0.title) == nil })
        #expect(BackgroundScenario.workerRuns(podcast))
        for episode in episodes { episode.gate.open() }

        let finished = try await ResumeScenario.wait(upTo: Self.afterTheGatesOpen) {
            episodes.allSatisfy { podcast.finishedFile(titled: $0.title) != nil } && !BackgroundScenario.workerRuns(podcast)
        }
        #expect(finished, "worker log: \(String(decoding: FileManager.default.contents(atPath: podcast.stateDirectory + "/worker.log") ?? Data(), as: UTF8.self))")
        for episode in episodes {
            #expect(BackgroundScenario.sha256(finished: episode, in: podcast) == BackgroundScenario.sha256(episode.body))
        }
        _ = guardian
    }

    /// A second `--background` request with the same options joins the running downloads: its
    /// episode starts while the first batch's is still held back, not after it.
    @Test func aSecondRequestJoinsTheRunningDownloadsInsteadOfWaiting() async throws {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 2, size: 300_000, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: Self.held(stallTimeout: 5))
        let guardian = WorkerGuard(podcast)
        // Listing number 2 is the older episode, episodes[0].
        let (first, second) = (episodes[0], episodes[1])

        #expect(try await podcast.run(["download", "2", "--background"]).status == 0)
        _ = try await BackgroundScenario.waitForStatus(podcast) { status in
            (BackgroundScenario.downloads(status)[first.title]?["bytes"] as? Int ?? 0) >= 20_000
        }
        #expect(try await podcast.run(["download", "1", "--background"]).status == 0)
        let joined = try await BackgroundScenario.waitForStatus(podcast) { status in
            (BackgroundScenario.downloads(status)[second.title]?["bytes"] as? Int ?? 0) > 0
        }
        #expect(BackgroundScenario.downloads(joined)[first.title]?["state"] as? String == "downloading", "the first is still held back")
        #expect(podcast.finishedFile(titled: first.title) == nil)
        for episode in episodes { episode.gate.open() }

        let finished = try await ResumeScenario.wait(upTo: Self.afterTheGatesOpen) {
            episodes.allSatisfy { podcast.finishedFile(titled: $0.title) != nil } && !BackgroundScenario.workerRuns(podcast)
        }
        let log = String(decoding: FileManager.default.contents(atPath: podcast.stateDirectory + "/worker.log") ?? Data(), as: UTF8.self)
        #expect(finished, "worker log: \(log)")
        #expect(log.contains("1 episode joins the running downloads"), "\(log)")
        for episode in episodes {
            #expect(BackgroundScenario.sha256(finished: episode, in: podcast) == BackgroundScenario.sha256(episode.body))
        }
        _ = guardian
    }

    @Test func workerSurvivesTheLaunchersDeathAndTheTerminalHangingUp() async throws {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 2, size: 300_000, on: server)
        // Never given up while held back, however slow the run (each held attempt gains too
        // little to count as progress, and the sixth such would end the batch and the worker).
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: "stall-timeout = 1\nretries = 1000\n")
        let guardian = WorkerGuard(podcast)
        let scratch = try TemporaryDirectory(prefix: "hangup")

        // A session of its own stands in for a terminal: its leader is the shell that launches.
        let script = #"echo $$ > "$1"; "$2" download all --background; echo launched > "$3"; sleep 60"#
        let session = try ChildProcess(
            URL(filePath: "/usr/bin/setsid"),
            ["/bin/sh", "-c", script, "sh", scratch.path("shell.pid"), builtExecutable(named: "podcast").path, scratch.path("launched")],
            environment: podcast.runEnvironment)
        #expect(try await ResumeScenario.wait { FileManager.default.fileExists(atPath: scratch.path("launched")) })
        let shell = try #require(Int32((try String(contentsOfFile: scratch.path("shell.pid"), encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
        let worker = try #require(BackgroundScenario.workerPID(podcast))

        // The terminal hangs up on its whole session, the launching shell dies, and a stray SIGHUP
        // reaches the worker itself.
        kill(-shell, SIGHUP)
        kill(shell, SIGKILL)
        kill(worker, SIGHUP)
        _ = await session.finish(within: .seconds(10))
        try await Task.sleep(for: .milliseconds(200))
        #expect(kill(worker, 0) == 0, "the worker died with its launcher's session")
        #expect(Self.sessionID(of: worker) == worker, "the worker leads a session of its own")
        for episode in episodes { episode.gate.open() }

        // Up to a minute and a quarter of back-off may be left when the gates open.
        let finished = try await ResumeScenario.wait(upTo: .seconds(150)) {
            episodes.allSatisfy { podcast.finishedFile(titled: $0.title) != nil }
        }
        #expect(finished)
        for episode in episodes {
            #expect(BackgroundScenario.sha256(finished: episode, in: podcast) == BackgroundScenario.sha256(episode.body))
        }
        _ = guardian
    }

    @Test func secondBackgroundRequestJoinsTheRunningWorker() async throws {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 2, size: 300_000, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: Self.held(stallTimeout: 1))
        let guardian = WorkerGuard(podcast)

        // The first episode is held back, so the first worker is still busy with it.
        let first = try await podcast.run(["download", "1", "--background", "--json"])
        let second = try await podcast.run(["download", "2", "--background", "--json"])
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\n\(second.stderr)")
        let firstWorker = try #require(Self.workerPID(inLaunch: first.stdout))
        #expect(Self.workerPID(inLaunch: second.stdout) == firstWorker)
        #expect(second.stderr.contains("(pid \(firstWorker))"))
        for episode in episodes { episode.gate.open() }

        let finished = try await ResumeScenario.wait(upTo: Self.afterTheGatesOpen) {
            episodes.allSatisfy { podcast.finishedFile(titled: $0.title) != nil } && !BackgroundScenario.workerRuns(podcast)
        }
        #expect(finished)
        for episode in episodes {
            #expect(BackgroundScenario.sha256(finished: episode, in: podcast) == BackgroundScenario.sha256(episode.body))
        }
        let log = try String(contentsOfFile: podcast.stateDirectory + "/worker.log", encoding: .utf8)
        #expect(log.components(separatedBy: " started").count - 1 == 1, "one worker only: \(log)")
        _ = guardian
    }

    @Test func killedWorkerIsReportedAndResumeFinishesByteIdentical() async throws {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 1, size: 1_000_000, stallAfter: 60_000, on: server)
        let episode = episodes[0]
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let guardian = WorkerGuard(podcast)

        #expect(try await podcast.run(["download", "1", "--background"]).status == 0)
        let worker = try #require(BackgroundScenario.workerPID(podcast))
        let running = try await BackgroundScenario.waitForStatus(podcast) { status in
            (BackgroundScenario.downloads(status)[episode.title]?["bytes"] as? Int ?? 0) >= 60_000
        }
        #expect(BackgroundScenario.downloads(running)[episode.title]?["state"] as? String == "downloading")
        kill(worker, SIGKILL)
        #expect(try await ResumeScenario.wait { kill(worker, 0) != 0 && !BackgroundScenario.workerRuns(podcast) })

        let status = try await BackgroundScenario.status(podcast)
        #expect(BackgroundScenario.downloads(status)[episode.title]?["state"] as? String == "interrupted")
        let workerEntry = status["worker"] as? [String: Any]
        #expect(workerEntry?["running"] as? Bool == false)
        let text = try await podcast.run(["status"])
        #expect(text.stdout.contains("the worker (pid \(worker)) stopped without finishing: run podcast resume"), "\(text.stdout)")

        // The server now answers in full, with the same file: only the missing bytes come.
        episode.gate.open()
        let resumed = try await podcast.run(["resume", "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(ResumeScenario.states(resumed.stdout)[episode.title] == "downloaded")
        #expect(BackgroundScenario.sha256(finished: episode, in: podcast) == BackgroundScenario.sha256(episode.body))
        let last = try #require(ResumeScenario.requests(server, path: episode.path).last)
        #expect(last.header("Range").map { $0 != "bytes=0-" } == true, "resume asked for \(last.header("Range") ?? "everything")")
        _ = guardian
    }

    @Test func onCompleteRunsOnceWithTheBatchSummary() async throws {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 2, size: 100_000, open: true, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let guardian = WorkerGuard(podcast)
        let scratch = try TemporaryDirectory(prefix: "on-complete")
        let copy = scratch.path("summary.json")
        let runs = scratch.path("runs")

        // The command may outlive the worker: the copy appears whole (a rename), and last.
        let command = #"echo "$PODCAST_SUMMARY" >> '\#(runs)'; cp "$PODCAST_SUMMARY" '\#(copy).part' && mv '\#(copy).part' '\#(copy)'"#
        let launched = try await podcast.run(["download", "all", "--background", "--on-complete", command])
        #expect(launched.status == 0, "\(launched.stderr)")
        #expect(try await ResumeScenario.wait(upTo: .seconds(60)) {
            FileManager.default.fileExists(atPath: copy) && !BackgroundScenario.workerRuns(podcast)
        })
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: copy))) as? [String: Any])
        #expect(summary["batch"] as? Int == 1)
        let results = try #require(summary["results"] as? [[String: Any]])
        #expect(Set(results.compactMap { $0["title"] as? String }) == Set(episodes.map(\.title)))
        #expect(results.allSatisfy { $0["state"] as? String == "downloaded" })
        for result in results {
            let episode = try #require(episodes.first { $0.title == result["title"] as? String })
            #expect(result["bytes"] as? Int == episode.body.count)
            #expect(result["path"] as? String == podcast.finishedFile(titled: episode.title))
        }
        let lines = try String(contentsOfFile: runs, encoding: .utf8).split(separator: "\n")
        #expect(lines == [Substring(podcast.stateDirectory + "/batches/1.json")])
        let status = try await podcast.run(["status"])
        #expect(status.stdout.contains("batch 1 finished"))
        #expect(status.stdout.contains("downloaded 2, skipped 0, failed 0"))
        _ = guardian
    }

    /// The configuration of a test that holds episodes back: attempts that end `stallTimeout`
    /// seconds into a held answer gain too little to count as progress, and with the scenario's
    /// quick retries the sixth such would give the episode up (and end the worker) some seconds
    /// in, before a slow run opens the gates; so they are never given up.
    private static func held(stallTimeout: Int) -> String {
        "stall-timeout = \(stallTimeout)\nretries = 1000\n"
    }

    /// How long the episodes may take once the gates open: the back-off of the held attempts
    /// doubles up to a minute.
    private static let afterTheGatesOpen = Duration.seconds(150)

    /// The worker pid of a `download --background --json` document.
    private static func workerPID(inLaunch stdout: String) -> Int? {
        let document = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        return (document?["worker"] as? [String: Any])?["pid"] as? Int
    }

    /// Field 6 (session) of `/proc/<pid>/stat`.
    private static func sessionID(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 3 ? Int32(fields[3]) : nil
    }
}
