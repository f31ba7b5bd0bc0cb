import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// The settings schema through the built binary: `podcast config` lists every setting (the
/// library's too) with its typed value and origin, the file takes plain numbers for sizes and
/// rates and `/dev/null` for no file, typos get the word meant, and a stored setting that no
/// longer reads is an error naming its subscription.
@Suite(.timeLimit(.minutes(5))) struct SettingsCommandTests {
    private static func settings(_ stdout: String) throws -> [String: [String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        let list = try #require(document["settings"] as? [[String: Any]])
        return Dictionary(list.map { ($0["key"] as? String ?? "", $0) }) { first, _ in first }
    }

    @Test func configJSONGivesEverySettingTypedWithItsOrigin() async throws {
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("""
            [download]
            limit-rate = 500000
            retry-wait = 0.5
            [library]
            with = ["info"]
            name-template = "{podcast}/{title}.{ext}"
            [update]
            feed-timeout = 30
            """)
        let result = try await podcast.run(["config", "--json", "--tag", "--concurrency", "5"])
        #expect(result.status == 0, "\(result.stderr)")
        let settings = try Self.settings(result.stdout)
        #expect(settings.count == SettingsSchema.all.count)
        #expect(settings["limit-rate"]?["value"] as? Int == 500_000)
        #expect(settings["limit-rate"]?["origin"] as? String == "\(podcast.configFile):2")
        #expect(settings["retry-wait"]?["value"] as? Double == 0.5)
        #expect(settings["with"]?["value"] as? [String] == ["info"])
        #expect(settings["with"]?["section"] as? String == "library")
        #expect(settings["name-template"]?["value"] as? String == "{podcast}/{title}.{ext}")
        #expect(settings["tag"]?["value"] as? Bool == true)
        #expect(settings["tag"]?["origin"] as? String == "flag --tag")
        #expect(settings["playlist"]?["value"] as? Bool == false)
        #expect(settings["concurrency"]?["value"] as? Int == 5)
        #expect(settings["feed-timeout"]?["value"] as? Int == 30)
        #expect(settings["proxy"]?["value"] is NSNull)
    }

    @Test func devNullIsNoConfigurationFile() async throws {
        let podcast = try PodcastBinary()
        let result = try await podcast.run(["config", "--json"], environment: ["PODCAST_CONFIG": "/dev/null"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(try Self.settings(result.stdout).values.allSatisfy { $0["origin"] as? String == "default" })
    }

    @Test func aMistypedKeyOrSectionIsAnsweredWithTheOneMeant() async throws {
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("concurency = 3\n[dowload]\nretries = 2\n")
        let result = try await podcast.run(["config"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("concurency is not a setting this version knows (did you mean concurrency?); ignored"), "\(result.stderr)")
        #expect(result.stderr.contains("[dowload] is not a section this version knows (did you mean [download]?)"), "\(result.stderr)")
    }

    @Test func aBlankEpisodesDirectoryInTheEnvironmentLeavesStatusRunning() async throws {
        let podcast = try PodcastBinary()
        let status = try await podcast.run(["status"], environment: ["PODCAST_EPISODES_DIR": "  "])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr == "warning: PODCAST_EPISODES_DIR is empty; running without it\n")
        let download = try await podcast.run(["config"], environment: ["PODCAST_EPISODES_DIR": "  "])
        #expect(download.status == 64)
        #expect(download.stderr.hasPrefix("error: PODCAST_EPISODES_DIR is empty; give a folder"), "\(download.stderr)")
    }

    @Test func aBadFlagValueSaysWhatTheSettingTakes() async throws {
        let result = try await PodcastBinary().run(["config", "--limit-rate", "fast"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--limit-rate must be a speed in bytes per second such as \"500k\" or \"2M\""), "\(result.stderr)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell breaks the record"))
    func aStoredTemplateThatNoLongerReadsIsAnErrorNamingTheSubscription() async throws {
        let server = try LoopbackServer()
        let show = ServedShow("Templated Show", slug: "templated", episodes: 1, on: server)
        let podcast = try SubscriptionScenario.home()
        try await SubscriptionScenario.subscribe(podcast, to: show, ["--name-template", "{title}.{ext}", "--first", "0"])
        let broken = try ChildProcess(URL(filePath: "/usr/bin/sqlite3"), [
            podcast.stateDirectory + "/state.sqlite", "UPDATE subscriptions SET name_template = '{title}.mp3'",
        ])
        #expect(await broken.finish(within: .seconds(10)).status == 0)
        let listed = try await podcast.run(["subscriptions"])
        #expect(listed.status == 1)
        #expect(listed.stderr.contains("the subscription \"Templated Show\": its stored name-template"), "\(listed.stderr)")
        #expect(!listed.stderr.contains("\n") || listed.stderr.split(separator: "\n").count == 1)
    }
}
