import Glibc
import PodcastPlatform
import PodcastText
import Synchronization

/// Hands each placed episode on to its `--on-episode` command (`LibrarySettings.onEpisode`).
///
/// The commands run one at a time, in the order their episodes were placed, on a thread of their
/// own: the batch's thread never waits for one, so a slow or hanging command holds no download
/// back (one thread, not one per episode: commands that sync a device or transcode would fight
/// each other, and their output would interleave). `finish` waits for those still to run when
/// the batch has ended, each bounded by the time limit (`BoundedCommand`). The episode's details
/// reach the command only in its environment, never in the text the shell reads.
final class EpisodeHooks: Sendable {
    /// One command to run.
    struct Job: Sendable {
        var item: DownloadItem
        var command: String
        var environment: [String: String]
    }

    /// How long a command may run: 60 s, or `PODCAST_HOOK_TIMEOUT` seconds (for tests).
    let limit: Duration
    /// The jobs not yet taken by the thread; nil marks the end.
    private let jobs = EventQueue<Job?>()
    /// Commands that failed, for the batch to report on its thread.
    private let failures = Mutex<[(item: DownloadItem, message: String)]>([])
    /// The running thread, while there is one.
    private let thread = Mutex<pthread_t?>(nil)
    /// This process's environment, which every command starts with.
    private let inherited: [String: String]

    init(limit: Duration = EpisodeHooks.configuredLimit, environment: [String: String] = EpisodeHooks.processEnvironment()) {
        self.limit = limit
        inherited = environment
    }

    /// The limit `PODCAST_HOOK_TIMEOUT` sets (seconds, fractions allowed), else 60 s.
    static var configuredLimit: Duration {
        guard let text = getenv("PODCAST_HOOK_TIMEOUT").map({ String(cString: $0) }), let seconds = Double(text), seconds > 0 else {
            return .seconds(60)
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The environment `command` runs with for `result`'s episode: this process's, with the
    /// episode's details.
    static func environment(for result: DownloadResult, path: String, over inherited: [String: String]) -> [String: String] {
        var environment = inherited
        let item = result.item
        environment["PODCAST_FILE"] = path
        environment["PODCAST_TITLE"] = item.entry.title
        environment["PODCAST_PODCAST"] = item.podcastTitle
        environment["PODCAST_GUID"] = item.entry.guid ?? ""
        environment["PODCAST_FEED"] = item.feed
        environment["PODCAST_DATE"] = item.entry.published.map(UTCDate.iso8601) ?? ""
        // A NUL cannot be in an environment; what follows one would be cut off silently.
        return environment.mapValues { $0.contains("\0") ? $0.replacing("\0", with: "") : $0 }
    }

    /// Queues `command` for `result`'s episode, placed at `path`; starts the thread when none runs.
    func handOn(_ result: DownloadResult, at path: String, to command: String) {
        jobs.post(Job(item: result.item, command: command, environment: Self.environment(for: result, path: path, over: inherited)))
        thread.withLock { thread in
            guard thread == nil else { return }
            do throws(SystemError) {
                thread = try ThreadStart.joinable { self.work() }
            } catch {
                self.failures.withLock { $0.append((result.item, "its --on-episode command was not run: \(error)")) }
            }
        }
    }

    /// Runs the jobs as they come, until the end mark.
    private func work() {
        while true {
            for job in jobs.drain() {
                guard let job else { return }
                do throws(BoundedCommand.Failure) {
                    try BoundedCommand.run(job.command, environment: job.environment, limit: limit)
                } catch {
                    failures.withLock { $0.append((job.item, "its --on-episode command \(error)")) }
                }
            }
        }
    }

    /// The failures since the last call, oldest first.
    func takeFailures() -> [(item: DownloadItem, message: String)] {
        failures.withLock { failures in
            defer { failures.removeAll() }
            return failures
        }
    }

    /// Waits for every queued command to end (each at most its limit), then lets the thread go.
    func finish() {
        guard let running = thread.withLock({ $0.take() }) else { return }
        jobs.post(nil)
        pthread_join(running, nil)
    }

    /// This process's environment, as `environ` holds it.
    static func processEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return environment
    }
}
