import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `--on-episode`: each placed episode handed on to the user's command, its details only in the
/// environment, bounded in time, from `download`, `update` and the background worker.
@Suite(.timeLimit(.minutes(3))) struct EpisodeHookTests {
    /// Titles a shell would act on if they were ever part of the text it reads.
    private static func hostileTitles(marks: String) -> [String] {
        [
            #"Quote's "double" $(touch \#(marks)/dollar) and `touch \#(marks)/backtick`"#,
            "Line one\nline two; ünïcödé — 東京 🎧",
        ]
    }

    /// Serves `titles` as a feed of small episodes (the first is the oldest) at /feed.xml.
    private static func serve(_ titles: [String], on server: LoopbackServer) {
        let items = titles.enumerated().map { index, title in
            """
            <item><title>\(escaped(title))</title><guid>guid-\(index + 1) $(x)</guid>
            <pubDate>Tue, 10 Nov 2026 08:0\(index):00 GMT</pubDate>
            <enclosure url="/media/\(index + 1).mp3" length="3000" type="audio/mpeg"/></item>
            """
        }
        server.setRoute("/feed.xml", .fixed(body: Data("<rss><channel><title>Hook Show</title>\(items.joined())</channel></rss>".utf8)))
        for index in titles.indices {
            server.setRoute("/media/\(index + 1).mp3", .fixed(body: ResumeScenario.media(seed: UInt64(index + 1), size: 3000), headers: [("Content-Type", "audio/mpeg")]))
        }
    }

    private static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing("\"", with: "&quot;").replacing("\n", with: "&#10;")
    }

    /// A command that appends its episode's environment to `file`, NUL-separated.
    private static func recorder(_ file: String) -> String {
        #"printf '%s\0' "$PODCAST_FILE" "$PODCAST_TITLE" "$PODCAST_PODCAST" "$PODCAST_GUID" "$PODCAST_FEED" "$PODCAST_DATE" >> '\#(file)'"#
    }

    /// What `recorder` wrote: one dictionary per run.
    private static func recorded(_ file: String) -> [[String: String]] {
        guard let data = FileManager.default.contents(atPath: file) else { return [] }
        let fields = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let names = ["file", "title", "podcast", "guid", "feed", "date"]
        return stride(from: 0, to: fields.count - names.count + 1, by: names.count).map { start in
            Dictionary(uniqueKeysWithValues: zip(names, fields[start..<start + names.count]))
        }
    }

    @Test func theEnvironmentCarriesHostileTitlesAndNothingInThemRuns() async throws {
        let scratch = try TemporaryDirectory(prefix: "hook")
        let server = try LoopbackServer()
        let titles = Self.hostileTitles(marks: scratch.path)
        Self.serve(titles, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let out = scratch.path("env")

        let download = try await podcast.run(["download", "all", "--on-episode", Self.recorder(out)])
        #expect(download.status == 0, "\(download.stderr)")
        let runs = Self.recorded(out).sorted { $0["guid"] ?? "" < $1["guid"] ?? "" }
        try #require(runs.count == 2, "\(runs)")
        for (index, run) in runs.enumerated() {
            #expect(run["guid"] == "guid-\(index + 1) $(x)")
            #expect(run["podcast"] == "Hook Show")
            #expect(run["feed"] == server.url("/feed.xml"))
            #expect(run["date"] == "2026-11-10T08:0\(index):00Z")
            let file = try #require(run["file"])
            #expect(FileManager.default.contents(atPath: file) == ResumeScenario.media(seed: UInt64(index + 1), size: 3000))
        }
        #expect(runs[0]["title"] == titles[0])
        #expect(runs[1]["title"]?.hasPrefix("Line one") == true)
        #expect(runs[1]["title"]?.hasSuffix("line two; ünïcödé — 東京 🎧") == true, "\(runs[1])")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("dollar")), "a $(…) in a title ran")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("backtick")), "a `…` in a title ran")
    }

    @Test func aFailingHookIsOneWarningAndItsOutputGoesToStderr() async throws {
        let server = try LoopbackServer()
        Self.serve(["One", "Two"], on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))

        let download = try await podcast.run(["download", "all", "--json", "--on-episode", "echo hook-said \"$PODCAST_TITLE\"; exit 3"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(ResumeScenario.results(download.stdout).map { $0["state"] as? String } == ["downloaded", "downloaded"])
        let warnings = download.stderr.split(separator: "\n").filter { $0.contains("--on-episode command exited with status 3") }
        #expect(warnings.count == 2, "\(download.stderr)")
        #expect(download.stderr.contains("hook-said One") && download.stderr.contains("hook-said Two"))
        #expect(download.stdout.contains("hook-said") == false, "the hook's output is not the JSON document's")
    }

    @Test func aHookThatHangsIsStoppedAtItsLimitWithEverythingItStarted() async throws {
        let scratch = try TemporaryDirectory(prefix: "hook")
        let server = try LoopbackServer()
        Self.serve(["Hangs"], on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let pidFile = scratch.path("pid")
        // The child ignores SIGTERM: only the SIGKILL to the group stops it.
        let command = "sh -c 'trap \"\" TERM; echo $$ > \(pidFile); while :; do sleep 1; done' & wait"

        let started = ContinuousClock.now
        let download = try await podcast.run(["download", "all", "--on-episode", command], environment: ["PODCAST_HOOK_TIMEOUT": "1"])
        let took = ContinuousClock.now - started
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stderr.contains("--on-episode command was stopped after 1 s"), "\(download.stderr)")
        // Well under the 60 s a hook gets by default (the whole run, under load, included).
        #expect(took < .seconds(45), "\(took)")
        let pid = try #require(Int32((try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        #expect(try await ResumeScenario.wait(upTo: .seconds(10)) { !Self.runs(pid) }, "the hook's child \(pid) still runs")
    }

    @Test func updateHandsOnItsEpisodesWithTheConfiguredCommand() async throws {
        let scratch = try TemporaryDirectory(prefix: "hook")
        let server = try LoopbackServer()
        let show = ServedShow("Loopback Hour", slug: "hour", episodes: 3, on: server)
        let out = scratch.path("env")
        let podcast = try SubscriptionScenario.home(configuration: "[download]\non-episode = '''\(Self.recorder(out))'''\n")
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--first", "2"])

        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        let runs = Self.recorded(out)
        #expect(Set(runs.compactMap { $0["title"] }) == ["Episode 2", "Episode 3"], "\(runs)")
        #expect(runs.allSatisfy { $0["feed"] == show.feedURL && $0["podcast"] == show.title })
        #expect(Set(runs.compactMap { $0["file"] }) == Set(show.fileNames(2, 3).map { show.folder(in: podcast) + "/" + $0 }))
    }

    @Test func aSubscriptionsOwnCommandReplacesTheRunsForItsEpisodesAlone() async throws {
        let scratch = try TemporaryDirectory(prefix: "hook")
        let server = try LoopbackServer()
        let hour = ServedShow("Loopback Hour", slug: "hour", episodes: 2, on: server)
        let plain = ServedShow("Plain Show", slug: "plain", episodes: 2, on: server)
        let quiet = ServedShow("Quiet Show", slug: "quiet", episodes: 2, on: server)
        let (own, run) = (scratch.path("own"), scratch.path("run"))
        let podcast = try SubscriptionScenario.home(configuration: "[download]\non-episode = '''\(Self.recorder(run))'''\n")
        try await SubscriptionScenario.subscribe(podcast, to: hour, ["--on-episode", "exit 9", "--keep", "5"])
        // Subscribing again with another command changes that setting and nothing else.
        let changed = try await podcast.run(["subscribe", hour.feedURL, "--on-episode", Self.recorder(own)])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stderr.contains("changed the settings of \"Loopback Hour\""), "\(changed.stderr)")
        try await SubscriptionScenario.subscribe(podcast, to: plain)
        try await SubscriptionScenario.subscribe(podcast, to: quiet, ["--on-episode", ":"])
        let listed = try await SubscriptionScenario.subscriptions(podcast)
        #expect(listed[hour.title]?["on_episode"] as? String == Self.recorder(own))
        #expect(listed[hour.title]?["keep"] as? Int == 5)
        #expect(listed[plain.title]?["on_episode"] is NSNull)
        #expect(listed[quiet.title]?["on_episode"] as? String == ":")

        let update = try await podcast.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        let ownRuns = Self.recorded(own)
        #expect(ownRuns.map { $0["title"] } == ["Episode 2"], "\(ownRuns)")
        #expect(ownRuns.map { $0["file"] } == [hour.folder(in: podcast) + "/" + hour.fileName(2)])
        #expect(SubscriptionScenario.contents(hour.folder(in: podcast) + "/" + hour.fileName(2)) == hour.episode(2).body)
        // The subscription without a command of its own took the configuration's; ':' ran none.
        let runRuns = Self.recorded(run)
        #expect(runRuns.map { $0["podcast"] } == [plain.title], "\(runRuns)")
        #expect(runRuns.map { $0["file"] } == [plain.folder(in: podcast) + "/" + plain.fileName(2)])
        #expect(!update.stderr.contains("--on-episode command exited"), "\(update.stderr)")

        // '' gives the subscription back the run's command.
        let cleared = try await podcast.run(["subscribe", hour.feedURL, "--on-episode", ""])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(try await SubscriptionScenario.subscriptions(podcast)[hour.title]?["on_episode"] is NSNull)
    }

    @Test func importGivesEveryFeedOfTheFileTheCommandAndABlankOneIsAUsageError() async throws {
        let scratch = try TemporaryDirectory(prefix: "hook")
        let file = scratch.path("list.opml")
        // Never fetched: import reads the file only.
        try #"<?xml version="1.0"?><opml version="2.0"><head><title>L</title></head><body><outline text="A" xmlUrl="http://127.0.0.1:9/a.xml"/><outline text="B" xmlUrl="http://127.0.0.1:9/b.xml"/></body></opml>"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let podcast = try SubscriptionScenario.home()

        let blank = try await podcast.run(["import", file, "--on-episode", "  "])
        #expect(blank.status == 64, "\(blank.stderr)")
        #expect(blank.stderrLines.first == "error: --on-episode needs a command; '' gives the subscription the run's command again, ':' none; see 'podcast import --help'")
        #expect(try await SubscriptionScenario.subscriptions(podcast).isEmpty)

        let imported = try await podcast.run(["import", file, "--on-episode", "echo \"$PODCAST_FILE\""])
        #expect(imported.status == 0, "\(imported.stderr)")
        let listed = try await SubscriptionScenario.subscriptions(podcast)
        #expect(listed.keys.sorted() == ["A", "B"])
        #expect(listed.values.allSatisfy { $0["on_episode"] as? String == "echo \"$PODCAST_FILE\"" })
    }

    @Test func theBackgroundWorkerRunsASubscriptionsOwnCommand() async throws {
        let scratch = try TemporaryDirectory(prefix: "hook")
        let server = try LoopbackServer()
        let hour = ServedShow("Loopback Hour", slug: "hour", episodes: 2, on: server)
        let own = scratch.path("own")
        let podcast = try SubscriptionScenario.home()
        let guardian = WorkerGuard(podcast)
        try await SubscriptionScenario.subscribe(podcast, to: hour, ["--on-episode", Self.recorder(own)])

        let launched = try await podcast.run(["update", "--background"])
        #expect(launched.status == 0, "\(launched.stderr)")
        #expect(try await ResumeScenario.wait(upTo: .seconds(60)) { Self.recorded(own).count == 1 && !BackgroundScenario.workerRuns(podcast) })
        #expect(Self.recorded(own).map { $0["file"] } == [hour.folder(in: podcast) + "/" + hour.fileName(2)])
        _ = guardian
    }

    @Test func theBackgroundWorkerHandsOnItsEpisodes() async throws {
        let scratch = try TemporaryDirectory(prefix: "hook")
        let server = try LoopbackServer()
        Self.serve(["Worker One", "Worker Two"], on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let guardian = WorkerGuard(podcast)
        let out = scratch.path("env")

        let launched = try await podcast.run(["download", "all", "--background", "--on-episode", Self.recorder(out)])
        #expect(launched.status == 0, "\(launched.stderr)")
        #expect(try await ResumeScenario.wait(upTo: .seconds(60)) { Self.recorded(out).count == 2 && !BackgroundScenario.workerRuns(podcast) })
        #expect(Set(Self.recorded(out).compactMap { $0["title"] }) == ["Worker One", "Worker Two"])
        _ = guardian
    }

    /// True while process `pid` runs (gone or a zombie: not).
    private static func runs(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: end)...].split(separator: " ").first != "Z"
    }
}
