import Foundation
@testable import PodcastKit
@testable import PodcastText
import Testing

/// The one table of settings (`SettingsSchema`): every setting once, read alike from every
/// layer, written back as it reads, and the README's sample configuration holding all of them.
@Suite(.timeLimit(.minutes(5))) struct SettingsSchemaTests {
    /// The README's `toml` block under "## Where files go", which documents every setting.
    private static func readmeSample() throws -> String {
        let readme = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../README.md").standardized
        let text = try String(contentsOf: readme, encoding: .utf8)
        let blocks = text.components(separatedBy: "```toml\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        return try #require(blocks.first { $0.contains("[library]") }, "the README has a sample configuration with a [library] section")
    }

    @Test func everySettingHasOneKeyOneFlagAndASection() {
        let keys = SettingsSchema.all.map(\.key)
        #expect(keys.count == 29)
        #expect(Set(keys).count == keys.count)
        let flags = SettingsSchema.all.compactMap(\.flag)
        #expect(Set(flags).count == flags.count)
        #expect(Set(SettingsSchema.all.map(\.section)) == Set(SettingSection.allCases))
    }

    @Test func everySettingReadsBackWhatItWrites() throws {
        var changed = Settings()
        changed.engine.concurrency = 7
        changed.engine.rateLimit = 1_572_864
        changed.retry.firstWait = .milliseconds(500)
        changed.library.companions = [.image, .info]
        changed.http.proxy = "http://127.0.0.1:3128"
        changed.podcastIndexKey = "KEY"
        changed.podcastIndexSecret = "SECRET$^"
        for settings in [Settings(), changed] {
            for setting in SettingsSchema.all {
                var read = Settings()
                try setting.set(setting.value(in: settings), in: &read)
                #expect(setting.value(in: read) == setting.value(in: settings), "\(setting.key)")
                if let written = setting.written(in: settings) {
                    let parsed = try Configuration.parse("\(setting.key) = \(written)\n", path: "c.toml")
                    #expect(setting.value(in: parsed.settings) == setting.value(in: settings), "\(setting.key) = \(written)")
                }
            }
        }
    }

    @Test func theReadmesSampleLoadsAndNamesEverySetting() throws {
        let authorities = FileManager.default.temporaryDirectory.appending(path: "ca-\(UUID().uuidString).pem").path
        try "not checked".write(toFile: authorities, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: authorities) }
        let sample = try Self.readmeSample().replacing("/etc/ssl/private-ca.pem", with: authorities)
        let configuration = try Configuration.parse(sample, path: "README.md")
        #expect(configuration.warnings == [])
        let missing = SettingsSchema.all.map(\.key).filter { configuration.lines[$0] == nil }
        #expect(missing == [], "settings the README's sample leaves out")
    }

    @Test func sizesAndRatesTakePlainNumbersToo() throws {
        let configuration = try Configuration.parse("limit-rate = 500000\nmax-episode-size = 1000000000\n", path: "c.toml")
        #expect(configuration.settings.engine.rateLimit == 500_000)
        #expect(configuration.settings.engine.maxEpisodeSize == 1_000_000_000)
        #expect(throws: ConfigurationError.self) { try Configuration.parse("limit-rate = 0\n", path: "c.toml") }
    }

    @Test func unknownKeysAndSectionsAreAnsweredWithTheNearestKnownOne() throws {
        let configuration = try Configuration.parse("concurency = 3\n[dowload]\nretries = 2\n[library]\ntemplate = 1\n", path: "c.toml")
        #expect(configuration.warnings == [
            "c.toml:1: concurency is not a setting this version knows (did you mean concurrency?); ignored",
            "c.toml:3: [dowload] is not a section this version knows (did you mean [download]?); its settings are ignored",
            "c.toml:5: template is not a setting this version knows; ignored",
        ])
        #expect(configuration.lines["retries"] == nil)
    }

    @Test func theUpdateSectionHoldsTheFeedTimeout() throws {
        let configuration = try Configuration.parse("[update]\nfeed-timeout = 30\n", path: "c.toml")
        #expect(configuration.settings.feedTimeout == .seconds(30))
        #expect(throws: ConfigurationError(path: "c.toml", line: 2, reason: "feed-timeout belongs in [update] or at the top, not in [http]")) {
            try Configuration.parse("[http]\nfeed-timeout = 30\n", path: "c.toml")
        }
    }

    @Test func devNullIsNoSettings() throws {
        #expect(try Configuration.load(path: "/dev/null", required: true).settings == Settings())
    }

    @Test func theLayersGoFileThenEnvironmentThenFlag() throws {
        let file = try Configuration.parse("episodes-dir = \"/file\"\nconcurrency = 2\n", path: "c.toml")
        var resolved = ResolvedSettings(configuration: file)
        try resolved.apply(environment: ["PODCAST_EPISODES_DIR": "/environment"])
        #expect(resolved.settings.episodesDirectory == "/environment")
        #expect(resolved.origin(of: "episodes-dir") == .environment("PODCAST_EPISODES_DIR"))
        try resolved.apply(commandLine: "5", to: "concurrency", flag: "--concurrency")
        #expect(resolved.settings.engine.concurrency == 5)
        #expect(resolved.origin(of: "concurrency") == .flag("--concurrency"))
        #expect(resolved.origin(of: "retries") == .byDefault)
        #expect(throws: UsageError("--concurrency must be a whole number from 1 to 16, not 40")) {
            try resolved.apply(commandLine: "40", to: "concurrency", flag: "--concurrency")
        }
    }

    @Test func aRecordReadsBackEvenWhenItsCAFileHasGoneSince() throws {
        var settings = Settings()
        settings.http.certificateAuthorities = "/nonexistent/ca.pem"
        let read = try QueuedSettings(stored: QueuedSettings(settings, secretsFile: nil).stored)
        #expect(read.settings.http.certificateAuthorities == "/nonexistent/ca.pem")
        #expect(throws: ConfigurationError.self) { try Configuration.parse("ca-file = \"/nonexistent/ca.pem\"\n", path: "c.toml") }
    }

    @Test func whatIsWrittenIsWhatReadsBack() throws {
        // Under a millisecond is no wait at all: refused when given, so no record can hold 0.
        #expect(throws: ConfigurationError.self) { try Configuration.parse("retry-wait = 0.0004\n", path: "c.toml") }
        let wide = try Configuration.parse("retries = 5000\nstall-timeout = 100000\n", path: "c.toml")
        #expect(wide.settings.retry.retries == 5000)
        #expect(try QueuedSettings(stored: QueuedSettings(wide.settings, secretsFile: nil).stored).settings == wide.settings)
    }

    @Test func typosFindTheWordMeant() {
        #expect(SettingsSchema.meant(by: "max-size") == "max-episode-size")
        #expect(SettingsSchema.meant(by: "concurency") == "concurrency")
        #expect(EditDistance.closest(to: "concurency", among: ["concurrency", "retries"]) == "concurrency")
        #expect(EditDistance.closest(to: "dowload", among: SettingSection.allCases.map(\.rawValue)) == "download")
        #expect(EditDistance.closest(to: "zzz", among: ["tag"]) == nil)
    }
}
