import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast update` left to itself, through the built binary: cron overlapping a manual run, a
/// kill -9 in the middle, output fit for a mail from cron, `-q`, the background worker, and the
/// systemd unit that ships in `contrib/systemd`.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionUnattendedTests {
    /// Two updates started together while the new episodes arrive slowly: every episode is
    /// requested once in all, both end well, and each file is there once.
    @Test func twoUpdatesAtOnceFetchEachEpisodeOnce() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Overlapping Show", slug: "overlap", episodes: 1, size: 240_000, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])
        show.publish(2)
        // About 1.5 s per episode: long enough for the second update to meet the first's downloads.
        for number in [2, 3] {
            let episode = show.episode(number)
            server.setRoute(episode.path, .file(
                body: episode.body, contentType: "audio/mpeg", etag: "\"overlap-\(number)\"",
                fault: .paced(chunkSize: 8_192, interval: .milliseconds(50))))
        }

        let first = try podcast.start(["update", "--json"])
        let second = try podcast.start(["update", "--json"])
        let results = [await first.finish(within: .seconds(60)), await second.finish(within: .seconds(60))]
        for result in results {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.timedOut)
        }
        for path in show.paths(2, 3) {
            #expect(server.requestCount(path: path) == 1, "\(path): \(show.mediaRequests)")
        }
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(2, 3))
        #expect(show.stored(2, in: podcast) == show.episode(2).body)
        #expect(show.stored(3, in: podcast) == show.episode(3).body)
        #expect(podcast.partialFiles().isEmpty, "\(podcast.partialFiles())")
        // Each episode is downloaded by one of them; the other skips it or never saw it as new.
        let states = results.flatMap { ResumeScenario.results($0.stdout) }
        for number in [2, 3] {
            let mentions = states.filter { $0["guid"] as? String == show.guid(number) }
            #expect(mentions.filter { $0["state"] as? String == "downloaded" }.count == 1, "\(results.map(\.stdout))")
            #expect(mentions.allSatisfy { ["downloaded", "skipped"].contains($0["state"] as? String) }, "\(results.map(\.stdout))")
        }
    }

    /// A show whose one new episode (resumable, with an ETag) stalls after `stallAfter` bytes
    /// until `gate` opens; `served` counts every body byte of it.
    private struct HeldEpisode {
        let server: LoopbackServer
        let show: ServedShow
        let podcast: PodcastBinary
        let stallAfter: Int
        let served = ServedBytes()
        let gate = Gate(open: false)

        var body: Data { show.episode(2).body }
        var path: String { show.episode(2).path }
    }

    /// Subscribes to a show, publishes its held episode of `size` bytes, and starts `update`;
    /// returns once the partial file holds the `stallAfter` bytes the server sent.
    private func updateHeldMidEpisode(_ title: String, size: Int, stallAfter: Int) async throws -> (HeldEpisode, ChildProcess) {
        let server = try LoopbackServer()
        let show = ServedShow(title, slug: "held", episodes: 1, on: server)
        let held = HeldEpisode(server: server, show: show, podcast: try SubscriptionScenario.home(), stallAfter: stallAfter)
        try await SubscriptionScenario.subscribe(held.podcast, to: show, ["--first", "0"])
        show.publish(size: size)
        let stalling = ServerRoute.file(
            body: held.body, contentType: "audio/mpeg", etag: "\"held\"", fault: .stall(afterBytes: stallAfter), served: held.served)
        let whole = ServerRoute.file(body: held.body, contentType: "audio/mpeg", etag: "\"held\"", fault: .none, served: held.served)
        server.setRoute(held.path, .handler { [gate = held.gate] _ in gate.isOpen ? whole : stalling })

        let update = try held.podcast.start(["update"])
        let reached = try await ResumeScenario.wait(upTo: .seconds(30)) {
            held.podcast.partialFiles().reduce(0) { $0 + $1.size } >= stallAfter
        }
        #expect(reached, "the partial file never reached \(stallAfter) bytes: \(held.podcast.partialFiles())")
        return (held, update)
    }

    /// Opens the gate and updates again: the file ends byte-identical, and the one request of
    /// this run asked for the bytes after the stall only.
    private func expectTheNextUpdateFetchesOnlyTheRest(_ held: HeldEpisode) async throws {
        #expect(held.show.filesOnDisk(in: held.podcast).isEmpty, "nothing unfinished under a final name")
        held.gate.open()
        let again = try await held.podcast.run(["update"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(held.show.stored(2, in: held.podcast) == held.body)
        #expect(held.served.total <= held.body.count + 64 * 1024, "served \(held.served.total) bytes for a file of \(held.body.count): \(again.stderr)")
        let requests = ResumeScenario.requests(held.server, path: held.path)
        #expect(requests.count == 2, "\(requests.map(\.headers))")
        #expect(requests.last?.header("Range") == ResumeScenario.range(from: held.stallAfter), "\(requests.map(\.headers))")
        #expect(held.podcast.partialFiles().isEmpty, "\(held.podcast.partialFiles())")
    }

    /// kill -9 while the new episode is partly there and its download recorded, then `update`
    /// again: the file ends byte-identical, and the second run asked only for the missing bytes.
    @Test func anUpdateKilledMidDownloadResumesWithoutFetchingAgain() async throws {
        try await killMidDownloadThenUpdate()
    }

    /// Kills the update once the store has the download's record (its validators: until then,
    /// the bytes cannot be proven to be the server's current file, and would be fetched again).
    private func killMidDownloadThenUpdate() async throws {
        let (held, update) = try await updateHeldMidEpisode("Killed Show", size: 1_000_000, stallAfter: 300_000)
        // `status` shows the download once the store has its record.
        let title = held.show.episode(2).title
        let status = try await BackgroundScenario.waitForStatus(held.podcast) { status in
            (BackgroundScenario.downloads(status)[title]?["bytes"] as? Int ?? 0) > 0
        }
        #expect(BackgroundScenario.downloads(status)[title]?["state"] as? String == "downloading", "\(status)")
        kill(update.pid, SIGKILL)
        let killed = await update.finish(within: .seconds(10))
        #expect(killed.status == SIGKILL, "killed: \(killed.status) \(killed.stderr)")
        try await expectTheNextUpdateFetchesOnlyTheRest(held)
    }

    /// SIGTERM (systemd stopping the service) in the middle of an update: exit 130 with the
    /// partial kept, and the next update asks only for the rest.
    @Test func anUpdateStoppedBySIGTERMExits130AndTheNextOneFinishesTheFile() async throws {
        let (held, update) = try await updateHeldMidEpisode("Stopped Show", size: 600_000, stallAfter: 200_000)
        kill(update.pid, SIGTERM)
        let stopped = await update.finish(within: .seconds(20))
        #expect(stopped.status == 130, "\(stopped.stderr)")
        #expect(stopped.stderrLines.last?.hasPrefix("interrupted") == true, "\(stopped.stderr)")
        try await expectTheNextUpdateFetchesOnlyTheRest(held)
    }

    /// Off a terminal (a cron mail), an update with news says one line per feed with news, one
    /// per finished episode and a summary; a feed without news says nothing.
    @Test
    func offATerminalUpdateSaysOneLinePerFeedWithNewsAndEpisodeAndASummary() async throws {
        let server = try LoopbackServer()
        let busy = ServedShow("Busy Show", slug: "busy", episodes: 1, on: server)
        let quiet = ServedShow("Quiet Show", slug: "quiet", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0", busy.feedURL, quiet.feedURL]).status == 0)
        busy.publish(2)

        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.isEmpty, "\(update.stdout)")
        let lines = update.stderrLines
        let feedLines = lines.filter { $0.contains("\"\(busy.title)\"") && $0.contains("2 new episodes") }
        let episodeLines = lines.filter { $0.hasPrefix("downloaded \"Episode 2\"") || $0.hasPrefix("downloaded \"Episode 3\"") }
        let summaries = lines.filter { $0.hasPrefix("updated 2 feeds") }
        #expect(feedLines.count == 1, "\(update.stderr)")
        #expect(episodeLines.count == 2, "\(update.stderr)")
        #expect(summaries.count == 1 && lines.last == summaries.first, "\(update.stderr)")
        #expect(lines.count == 4, "nothing but those: \(update.stderr)")
        #expect(!lines.contains { $0.contains(quiet.title) }, "\(update.stderr)")
    }

    @Test func quietUpdateIsSilentOnSuccessAndPrintsOnlyErrorsOnFailure() async throws {
        let server = try LoopbackServer()
        let shows = [ServedShow("First Show", slug: "first", episodes: 1, on: server), ServedShow("Second Show", slug: "second", episodes: 1, on: server)]
        let podcast = try SubscriptionScenario.home()
        #expect(try await podcast.run(["subscribe", "--first", "0"] + shows.map(\.feedURL)).status == 0)
        for show in shows { show.publish() }

        let success = try await podcast.run(["update", "-q"])
        #expect(success.status == 0, "\(success.stderr)")
        #expect(success.stdout.isEmpty && success.stderr.isEmpty, "stdout: \(success.stdout) stderr: \(success.stderr)")
        for show in shows { #expect(show.filesOnDisk(in: podcast) == show.fileNames(2)) }

        // Now one feed fails and the other's new episode is missing on its server.
        server.setRoute(shows[0].feedPath, .status(500))
        shows[1].publish()
        server.setRoute(shows[1].episode(3).path, .status(404))
        let failure = try await podcast.run(["update", "-q"])
        #expect(failure.status == 1, "\(failure.stderr)")
        #expect(failure.stdout.isEmpty, "\(failure.stdout)")
        #expect(failure.stderrLines.count == 2, "one line for the feed, one for the episode: \(failure.stderr)")
        #expect(failure.stderrLines.allSatisfy { $0.hasPrefix("error:") }, "\(failure.stderr)")
        #expect(failure.stderrLines.contains { $0.contains(shows[0].title) }, "\(failure.stderr)")
        #expect(failure.stderrLines.contains { $0.contains("Episode 3") }, "\(failure.stderr)")
    }

    /// `update --background` returns while the new episode is still held back by the server; the
    /// worker then downloads it and logs the feed's news.
    @Test func backgroundUpdateReturnsAtOnceAndTheWorkerDownloads() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Background Show", slug: "background", episodes: 1, on: server)
        // Held back, the episode gains no byte at all (a slow launcher on a busy machine must not
        // see it finished by the worker's resumes), and its attempts are not counted out.
        let podcast = try SubscriptionScenario.home(configuration: "stall-timeout = 1\nretries = 1000\n")
        let guardian = WorkerGuard(podcast)
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])
        show.publish()
        let episode = show.episode(2)
        let gate = Gate(open: false)
        let whole = ServerRoute.file(body: episode.body, contentType: "audio/mpeg", etag: "\"bg\"")
        let held = ServerRoute.file(body: episode.body, contentType: "audio/mpeg", etag: "\"bg\"", fault: .stall(afterBytes: 0))
        server.setRoute(episode.path, .handler { _ in gate.isOpen ? whole : held })

        let launched = try await podcast.run(["update", "--background"])
        #expect(launched.status == 0, "\(launched.stderr)")
        #expect(show.stored(2, in: podcast) == nil, "the launcher did not wait for the download")
        gate.open()

        let finished = try await ResumeScenario.wait(upTo: .seconds(60)) {
            show.stored(2, in: podcast) != nil && !BackgroundScenario.workerRuns(podcast)
        }
        let log = String(decoding: SubscriptionScenario.contents(podcast.stateDirectory + "/worker.log") ?? Data(), as: UTF8.self)
        #expect(finished, "worker log: \(log)")
        #expect(show.stored(2, in: podcast) == episode.body)
        #expect(log.split(separator: "\n").contains { $0.contains("\"\(show.title)\"") && $0.contains("1 new episode") }, "\(log)")
        #expect(show.mediaRequests.allSatisfy { $0 == episode.path })
        _ = guardian
    }

    /// The systemd user service in `contrib/systemd` runs its ExecStart line, with the program
    /// path pointing at this build: silent, exit 0, and the new episode on disk.
    @Test func theSystemdServicesCommandLineUpdatesSilently() async throws {
        let checkout = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        let service = try String(contentsOf: checkout.appending(path: "contrib/systemd/podcast-update.service"), encoding: .utf8)
        let timer = try String(contentsOf: checkout.appending(path: "contrib/systemd/podcast-update.timer"), encoding: .utf8)
        let execStart = service.split(separator: "\n").filter { $0.hasPrefix("ExecStart=") }
        try #require(execStart.count == 1, "one ExecStart line: \(service)")
        let commandLine = execStart[0].dropFirst("ExecStart=".count)
        // Plain words only: no quoting, no specifier but the home directory in the program path.
        #expect(!commandLine.contains("\"") && !commandLine.contains("'") && !commandLine.contains("\\"))
        var words = commandLine.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        #expect(words.first?.hasPrefix("%h/") == true && words.first?.hasSuffix("/podcast") == true, "\(commandLine)")
        #expect(words.dropFirst().allSatisfy { !$0.contains("%") }, "\(commandLine)")
        #expect(service.contains("Type=oneshot"), "\(service)")
        #expect(timer.contains("Persistent=true") && timer.contains("OnCalendar="), "\(timer)")
        words.removeFirst()

        let server = try LoopbackServer()
        let show = ServedShow("Timed Show", slug: "timed", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "0"])
        show.publish()
        let run = try ChildProcess(builtExecutable(named: "podcast"), words, environment: podcast.runEnvironment)
        let result = await run.finish(within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(show.stored(2, in: podcast) == show.episode(2).body)
    }
}
