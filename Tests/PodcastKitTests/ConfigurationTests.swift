import Foundation
import PodcastKit
import Testing

@Suite struct ConfigurationTests {
    @Test func readsEveryKnownSetting() throws {
        let configuration = try Configuration.parse(
            """
            # podcast settings
            country = "gb"
            user-agent = "tester/1.0 \\"quoted\\""  # trailing comment
            connect_timeout = 7
            stall-timeout = 3
            """, path: "config.toml")
        #expect(configuration.country == "GB")
        #expect(configuration.userAgent == "tester/1.0 \"quoted\"")
        #expect(configuration.connectTimeout == 7)
        #expect(configuration.stallTimeout == 3)
        #expect(configuration.httpSettings.stallTimeout == 3)
        #expect(configuration.httpSettings.connectTimeout == 7)
    }

    @Test func readsTheDownloadSettings() throws {
        let configuration = try Configuration.parse(
            "concurrency = 5\nepisodes-dir = \"/srv/podcasts\"\nlimit-rate = \"1.5M\"\n", path: "c.toml")
        #expect(configuration.concurrency == 5)
        #expect(configuration.episodesDirectory == "/srv/podcasts")
        #expect(configuration.limitRate == 1_572_864)
        #expect(throws: ConfigurationError.self) { try Configuration.parse("concurrency = 40\n", path: "c.toml") }
        #expect(throws: ConfigurationError.self) { try Configuration.parse("limit-rate = \"fast\"\n", path: "c.toml") }
    }

    @Test func speedsAreReadLikeCurlReadsThem() {
        #expect(ByteCount.bytesPerSecond("500k") == 512_000)
        #expect(ByteCount.bytesPerSecond("2M") == 2_097_152)
        #expect(ByteCount.bytesPerSecond("1000") == 1000)
        #expect(ByteCount.bytesPerSecond("0") == nil)
        #expect(ByteCount.bytesPerSecond("-1k") == nil)
        #expect(ByteCount.bytesPerSecond("fast") == nil)
    }

    @Test func unknownKeysAreCollectedNotFatal() throws {
        let configuration = try Configuration.parse("future-setting = 1\n", path: "c.toml")
        #expect(configuration.unknownKeys == ["c.toml:1: future-setting"])
    }

    @Test func badValueNamesTheLine() {
        #expect(throws: ConfigurationError(path: "c.toml", line: 2, reason: "stall-timeout must be a whole number of seconds, 1 or more")) {
            try Configuration.parse("country = \"US\"\nstall-timeout = soon\n", path: "c.toml")
        }
    }

    @Test func lineWithoutEqualsIsAnError() {
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse("[downloads]\n", path: "c.toml")
        }
    }

    @Test func missingFileIsAnEmptyConfiguration() throws {
        let configuration = try Configuration.load(path: "/nonexistent/podcast/config.toml")
        #expect(configuration == Configuration())
    }
}

@Suite struct PodcastPathsTests {
    @Test func followsTheContractsPrecedence() {
        let xdg = PodcastPaths(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/cfg"])
        #expect(xdg.home == "/data/podcast")
        #expect(xdg.episodesDirectory == "/data/podcast/Episodes")
        #expect(xdg.configFile == "/cfg/podcast/config.toml")

        let plain = PodcastPaths(environment: ["HOME": "/home/u"])
        #expect(plain.home == "/home/u/.local/share/podcast")
        #expect(plain.configFile == "/home/u/.config/podcast/config.toml")

        let overridden = PodcastPaths(environment: [
            "HOME": "/home/u", "PODCAST_HOME": "/p", "PODCAST_EPISODES_DIR": "/e", "PODCAST_CONFIG": "/c.toml",
        ])
        #expect(overridden.database == "/p/state.sqlite")
        #expect(overridden.episodesDirectory == "/e")
        #expect(overridden.configFile == "/c.toml")
    }
}
