import Foundation
import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Synchronization
import Testing

/// What the background, status, pause and cancel tests share: a show of slowly served episodes,
/// `status --json` read as a dictionary, the worker's pid, and a guard that kills a worker a test
/// leaves running.
enum BackgroundScenario {
    /// One served episode: its title, its path on the server, its bytes, and the gate that holds
    /// its answers back.
    struct Episode {
        var title: String
        var path: String
        var body: Data
        var gate: Gate
    }

    /// Serves `count` episodes of `size` bytes as resumable files (ETags, ranges); returns them
    /// oldest first (listing number `count` is the first). While an episode's gate is closed,
    /// each answer sends `stallAfter` bytes and then nothing (with `stall-timeout = 1` the attempt
    /// ends a second later and is retried); once the gate opens, the next answer sends the rest at
    /// full speed. An attempt that gains less than `RetryPolicy.progressStep` gained nothing: such
    /// attempts back off (2, 4, 8, … s) and the episode fails after the sixth, about a minute in.
    /// A test that holds an episode longer serves at least that step per attempt, and enough
    /// bytes that the attempts, each a second apart, do not finish it on their own.
    static func show(count: Int, size: Int, stallAfter: Int = 20_000, open: Bool = false, on server: LoopbackServer) -> [Episode] {
        let episodes = (1...count).map { index in
            Episode(
                title: "Background \(index)", path: "/media/bg\(index).mp3",
                body: ResumeScenario.media(seed: UInt64(index), size: size), gate: Gate(open: open))
        }
        ResumeScenario.serveFeed(episodes.map { ResumeScenario.Episode(title: $0.title, path: $0.path, length: $0.body.count) }, on: server)
        for (index, episode) in episodes.enumerated() {
            let etag = "\"bg\(index)\""
            let whole = ServerRoute.file(body: episode.body, contentType: "audio/mpeg", etag: etag)
            let held = ServerRoute.file(body: episode.body, contentType: "audio/mpeg", etag: etag, fault: .stall(afterBytes: stallAfter))
            server.setRoute(episode.path, .handler { _ in episode.gate.isOpen ? whole : held })
        }
        return episodes
    }

    /// The SHA-256 of `data`.
    static func sha256(_ data: Data) -> [UInt8] {
        var hasher = SHA2(.sha256)
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// The SHA-256 of the finished file of `episode`, nil when there is none.
    static func sha256(finished episode: Episode, in podcast: PodcastBinary) -> [UInt8]? {
        podcast.finishedFile(titled: episode.title).flatMap { try? SHA2.digest(ofFile: $0, .sha256) }
    }

    /// `podcast status --json` as a dictionary (empty when it printed no JSON).
    static func status(_ podcast: PodcastBinary) async throws -> [String: Any] {
        let result = try await podcast.run(["status", "--json"])
        #expect(result.status == 0, "status: \(result.stderr)")
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// The `downloads` of a status document, keyed by title.
    static func downloads(_ status: [String: Any]) -> [String: [String: Any]] {
        let entries = status["downloads"] as? [[String: Any]] ?? []
        return Dictionary(entries.map { ($0["title"] as? String ?? "", $0) }) { first, _ in first }
    }

    /// Polls `status --json` until `condition` holds for it, and returns that document; past
    /// `timeout` a test issue names each download's state, and the last document is returned.
    static func waitForStatus(
        _ podcast: PodcastBinary, upTo timeout: Duration = .seconds(30), until condition: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        var status = try await self.status(podcast)
        while !condition(status) {
            guard ContinuousClock.now < deadline else {
                let states = downloads(status).sorted { $0.key < $1.key }.map { title, entry in
                    "\(title): \(entry["state"] ?? "?") \(entry["bytes"] ?? "?") bytes \(entry["error"].map { "(\($0))" } ?? "")"
                }
                Issue.record("status did not reach the awaited state within \(timeout): \(states.joined(separator: "; "))")
                return status
            }
            try await Task.sleep(for: .milliseconds(100))
            status = try await self.status(podcast)
        }
        return status
    }

    /// The pid in the home's `worker.pid`.
    static func workerPID(_ podcast: PodcastBinary) -> Int32? {
        (try? String(contentsOfFile: podcast.stateDirectory + "/worker.pid", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// True while a process holds the home's worker lock.
    static func workerRuns(_ podcast: PodcastBinary) -> Bool {
        WorkerLock.isHeld(at: podcast.stateDirectory + "/worker.lock")
    }
}

/// Whether a served episode's answers may go through; opened by the test, from any thread.
final class Gate: Sendable {
    private let state: Mutex<Bool>

    init(open: Bool) {
        state = Mutex(open)
    }

    var isOpen: Bool { state.withLock { $0 } }

    func open() {
        state.withLock { $0 = true }
    }
}

/// Kills, when the test ends, a worker still holding the lock of `podcast`'s home: no background
/// worker a test starts outlives it.
final class WorkerGuard {
    private let podcast: PodcastBinary

    init(_ podcast: PodcastBinary) {
        self.podcast = podcast
    }

    deinit {
        guard BackgroundScenario.workerRuns(podcast), let pid = BackgroundScenario.workerPID(podcast) else { return }
        let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
        if command.contains("worker") { kill(pid, SIGKILL) }
    }
}
