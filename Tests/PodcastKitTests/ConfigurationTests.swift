import Foundation
import PodcastHTTP
import PodcastKit
import PodcastPlatform
import Testing

@Suite(.timeLimit(.minutes(5))) struct ConfigurationTests {
    @Test func readsEveryKnownSetting() throws {
        let configuration = try Configuration.parse(
            """
            # podcast settings
            country = "gb"
            user-agent = "tester/1.0 \\"quoted\\""  # trailing comment
            connect_timeout = 7
            stall-timeout = 3
            """, path: "config.toml")
        #expect(configuration.settings.country == "GB")
        #expect(configuration.settings.http.userAgent == "tester/1.0 \"quoted\"")
        #expect(configuration.settings.http.connectTimeout == 7)
        #expect(configuration.settings.http.stallTimeout == 3)
        #expect(configuration.settings.http.stallTimeout == 3)
        #expect(configuration.settings.http.connectTimeout == 7)
        #expect(configuration.origin(of: "stall-timeout") == .file("config.toml:5"))
    }

    @Test func readsTheDownloadSettings() throws {
        let configuration = try Configuration.parse(
            "concurrency = 5\nepisodes-dir = \"/srv/podcasts\"\nlimit-rate = \"1.5M\"\n", path: "c.toml")
        #expect(configuration.settings.engine.concurrency == 5)
        #expect(configuration.settings.episodesDirectory == "/srv/podcasts")
        #expect(configuration.settings.engine.rateLimit == 1_572_864)
        #expect(throws: ConfigurationError.self) { try Configuration.parse("concurrency = 40\n", path: "c.toml") }
        #expect(throws: ConfigurationError.self) { try Configuration.parse("limit-rate = \"fast\"\n", path: "c.toml") }
    }

    @Test func sizesAreShownInTheUnitsTheyAreWrittenIn() {
        #expect(ByteCount.text(999) == "999 B")
        #expect(ByteCount.text(2_097_152) == "2.0 MiB")
        #expect(ByteCount.text(1_000 * 1024) == "1.0 MiB")
        #expect(ByteCount.text(Int64(ByteCount.bytesPerSecond("1G") ?? 0)) == "1.0 GiB")
        #expect(ByteCount.written(1_572_864) == "1536k")
        #expect(ByteCount.written(16 << 30) == "16G")
        #expect(ByteCount.written(1000) == "1000")
    }

    @Test func speedsAreReadLikeCurlReadsThem() {
        #expect(ByteCount.bytesPerSecond("500k") == 512_000)
        #expect(ByteCount.bytesPerSecond("2M") == 2_097_152)
        #expect(ByteCount.bytesPerSecond("1000") == 1000)
        #expect(ByteCount.bytesPerSecond("0") == nil)
        #expect(ByteCount.bytesPerSecond("-1k") == nil)
        #expect(ByteCount.bytesPerSecond("fast") == nil)
        #expect(ByteCount.bytesPerSecond("1.5M") == 1_572_864)
        for written in ["0x10", "1e3", "+5", "inf", "nan", "1.2.3k", ".", "k", ""] {
            #expect(ByteCount.bytesPerSecond(written) == nil, "\(written)")
        }
    }

    @Test func unknownKeysAreCollectedNotFatal() throws {
        let configuration = try Configuration.parse("future-setting = 1\n", path: "c.toml")
        #expect(configuration.warnings == ["c.toml:1: future-setting is not a setting this version knows; ignored"])
    }

    @Test func badValueNamesTheLine() {
        #expect(throws: ConfigurationError(path: "c.toml", line: 2, reason: "stall-timeout must be a whole number of seconds, 1 or more")) {
            try Configuration.parse("country = \"US\"\nstall-timeout = \"soon\"\n", path: "c.toml")
        }
    }

    @Test func aTOMLSyntaxErrorNamesItsLine() throws {
        let error = try #require(throws: ConfigurationError.self) { try Configuration.parse("country = \"US\"\n\nretries = soon\n", path: "c.toml") }
        #expect(error.line == 3)
        #expect(error.description.hasPrefix("configuration c.toml:3: column 11: expected a value, found \"soon\""))
    }

    @Test func lineWithoutEqualsIsAnErrorAtItsLine() throws {
        let error = try #require(throws: ConfigurationError.self) { try Configuration.parse("country = \"US\"\nconcurrency\n", path: "c.toml") }
        #expect(error.line == 2)
    }

    @Test func settingsMayStandInTheirSections() throws {
        let configuration = try Configuration.parse(
            """
            [search]
            country = "fr"

            [download]
            concurrency = 4
            max-per-host = 1

            [http]
            headers = ["X-Api-Key: secret"]
            header-hosts = ["cdn.example.com"]
            proxy = "http://127.0.0.1:3128"
            cookies = false
            """, path: "c.toml")
        #expect(configuration.settings.country == "FR")
        #expect(configuration.settings.engine.concurrency == 4)
        #expect(configuration.settings.engine.connectionsPerHost == 1)
        #expect(configuration.origin(of: "max-per-host") == .file("c.toml:6"))
        #expect(configuration.settings.http.headers.fields == ["X-Api-Key: secret"])
        #expect(configuration.settings.http.headers.hosts == ["cdn.example.com"])
        let http = configuration.settings.http
        #expect(http.proxy == "http://127.0.0.1:3128")
        #expect(http.cookies == false)
        #expect(http.headers == RequestHeaders(fields: ["X-Api-Key: secret"], hosts: ["cdn.example.com"]))
        var resolved = ResolvedSettings(configuration: configuration)
        try resolved.apply(environment: ["https_proxy": "http://other:1"])
        #expect(resolved.settings.http.proxy == nil)
        #expect(resolved.origin(of: "proxy") == .environment("https_proxy", value: "http://other:1"))
    }

    @Test func aSettingInAnotherSectionNamesWhereItBelongs() {
        #expect(throws: ConfigurationError(path: "c.toml", line: 2, reason: "concurrency belongs in [download] or at the top, not in [http]")) {
            try Configuration.parse("[http]\nconcurrency = 2\n", path: "c.toml")
        }
    }

    @Test func aKeyGivenTwiceIsAnError() throws {
        let same = try #require(throws: ConfigurationError.self) { try Configuration.parse("retries = 3\nretries = 4\n", path: "c.toml") }
        #expect(same.line == 2)
        #expect(throws: ConfigurationError(path: "c.toml", line: 3, reason: "retries is already set on line 1; keep one of them")) {
            try Configuration.parse("retries = 3\n[download]\nretries = 4\n", path: "c.toml")
        }
    }

    @Test func aBadHeaderIsAnError() {
        #expect(throws: ConfigurationError.self) { try Configuration.parse("headers = [\"no colon\"]\n", path: "c.toml") }
        #expect(throws: ConfigurationError.self) { try Configuration.parse("header-hosts = [\"https://x\"]\n", path: "c.toml") }
    }

    @Test func unknownSectionsAreCollectedNotFatal() throws {
        let configuration = try Configuration.parse("[future]\nthing = 1\n", path: "c.toml")
        #expect(configuration.warnings == ["c.toml:2: [future] is not a section this version knows; its settings are ignored"])
    }

    @Test func aMissingFileTheUserNamedIsAnError() {
        #expect(throws: ConfigurationError.self) { try Configuration.load(path: "/nonexistent/podcast/config.toml", required: true) }
    }

    @Test func missingFileIsAnEmptyConfiguration() throws {
        let configuration = try Configuration.load(path: "/nonexistent/podcast/config.toml")
        #expect(configuration == Configuration())
    }
}

@Suite(.timeLimit(.minutes(5))) struct PodcastPathsTests {
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
