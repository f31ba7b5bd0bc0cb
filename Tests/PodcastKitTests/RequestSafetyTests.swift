import Foundation
@testable import PodcastHTTP
@testable import PodcastKit
import PodcastTestSupport
@testable import PodcastText
import Testing

/// Which server a URL names, what is shown of its credentials, which headers go where, and which
/// redirects are followed: pure decisions, then the HTTP client carrying them out on loopback.
@Suite(.timeLimit(.minutes(5))) struct RequestSafetyTests {
    // MARK: URLOrigin

    @Test func anOriginIsSchemeHostAndPortWithDefaultsAndWithoutCredentials() throws {
        let origin = try #require(URLOrigin("HTTPS://user:secret@CDN.Example.com/a?b#c"))
        #expect(origin == URLOrigin("https://cdn.example.com:443/other"))
        #expect(origin.isSecure)
        #expect(URLOrigin("http://127.0.0.1:8080/x")?.port == 8080)
        #expect(URLOrigin("http://[::1]:81/x")?.host == "::1")
        #expect(URLOrigin("http://[::1]/x")?.port == 80)
        #expect(URLOrigin("http://a.example/x") != URLOrigin("https://a.example/x"))
        #expect(URLOrigin("http://a.example:81/") != URLOrigin("http://a.example/"))
        #expect(URLOrigin("ftp://a.example/x") == nil)
        #expect(URLOrigin("/relative/path") == nil)
        #expect(URLOrigin("http:///no-host") == nil)
    }

    @Test func aHostIsWithinItsDomainByWholeLabels() throws {
        let origin = try #require(URLOrigin("https://media.cdn.example.com/file.mp3"))
        #expect(origin.isWithin("example.com"))
        #expect(origin.isWithin("CDN.example.com"))
        #expect(origin.isWithin("media.cdn.example.com"))
        #expect(!origin.isWithin("ample.com"))
        #expect(!origin.isWithin("other.example.com"))
    }

    // MARK: Credentials

    /// An error's text names the URL whole; what hides its password is the output boundary,
    /// which must still find the URL in that text.
    @Test func anHTTPErrorShownAtTheBoundaryNeverRepeatsAPassword() {
        let error = HTTPError.status(404, url: "http://listener:hunter2@127.0.0.1:1/ep.mp3", retryAfter: nil)
        let shown = SecretRedactor.redacted(error.description)
        #expect(!shown.contains("hunter2"))
        #expect(shown.contains("http://***@127.0.0.1:1/ep.mp3"))
    }

    // MARK: RequestHeaders

    @Test func headersWithoutHostsGoOnlyToTheServerTheRequestStartsAt() {
        let headers = RequestHeaders(fields: ["X-Token: s3cret"])
        let start = "https://feeds.example.com/ep.mp3"
        #expect(headers.fields(for: start, startingAt: start) == ["X-Token: s3cret"])
        #expect(headers.fields(for: "https://feeds.example.com/elsewhere.mp3", startingAt: start) == ["X-Token: s3cret"])
        #expect(headers.fields(for: "https://cdn.example.net/ep.mp3", startingAt: start).isEmpty)
        #expect(headers.fields(for: "http://feeds.example.com/ep.mp3", startingAt: start).isEmpty)
        #expect(headers.fields(for: "https://feeds.example.com:8443/ep.mp3", startingAt: start).isEmpty)
    }

    @Test func headersWithHostsGoToThoseHostsOnAnyHop() {
        let headers = RequestHeaders(fields: ["X-Token: s3cret"], hosts: ["cdn.example.net"])
        let start = "https://tracker.example.org/redirect/cdn.example.net/ep.mp3"
        #expect(headers.fields(for: start, startingAt: start).isEmpty)
        #expect(headers.fields(for: "https://cdn.example.net/ep.mp3", startingAt: start) == ["X-Token: s3cret"])
        #expect(headers.fields(for: "https://eu.cdn.example.net/ep.mp3", startingAt: start) == ["X-Token: s3cret"])
        #expect(headers.names == ["X-Token"])
    }

    // MARK: RedirectRule

    private let settings = HTTPSettings(maxRedirects: 3)

    @Test func aStepDownFromHTTPSToHTTPIsRefusedUnlessAllowed() throws {
        let refusal = try #require(RedirectRule.refusal(from: "https://a.example/x", to: "http://b.example/x", followed: 0, settings: settings))
        #expect(refusal.kind == .insecureRedirect)
        #expect(refusal.description.contains("refused the redirect from https to plain http (http://b.example/x)"))
        #expect(refusal.description.contains("allow-insecure-redirects"))
        var allowing = settings
        allowing.allowsInsecureRedirects = true
        #expect(RedirectRule.refusal(from: "https://a.example/x", to: "http://b.example/x", followed: 0, settings: allowing) == nil)
    }

    @Test func upgradesAndLevelHopsAreFollowedUpToTheLimit() {
        #expect(RedirectRule.refusal(from: "http://a.example/x", to: "https://a.example/x", followed: 0, settings: settings) == nil)
        #expect(RedirectRule.refusal(from: "https://a.example/x", to: "https://b.example/x", followed: 2, settings: settings) == nil)
        #expect(RedirectRule.refusal(from: "http://a.example/x", to: "http://b.example/x", followed: 3, settings: settings)?.kind == .tooManyRedirects)
        #expect(RedirectRule.refusal(from: "http://a.example/x", to: "ftp://b.example/x", followed: 0, settings: settings)?.kind == .unsupportedURL)
        #expect(RedirectRule.refusal(from: "http://a.example/x", to: "file:///etc/passwd", followed: 0, settings: settings)?.kind == .unsupportedURL)
    }

    @Test func anInsecureRedirectFailsTheEpisodeForGood() {
        let failure = FailedTransfer(id: 0, kind: .http(HTTPError(kind: .insecureRedirect, url: "https://a/x", detail: "", advice: "")), url: "https://a/x")
        var history = RetryPolicy.History()
        #expect(RetryPolicy().decide(after: failure, resumed: false, history: &history, jitter: 1) == .fail(final: true))
    }

    // MARK: The HTTP client, hop by hop

    @Test func theClientCarriesHeadersOnlyWhereTheyMayGo() throws {
        let target = try LoopbackServer(routes: ["/feed.xml": .fixed(body: Data("<rss/>".utf8))])
        let start = try LoopbackServer(routes: ["/feed.xml": .redirect(to: target.url("/feed.xml").replacing("127.0.0.1", with: "localhost"))])
        let client = HTTPClient(settings: HTTPSettings(headers: RequestHeaders(fields: ["X-Token: s3cret"])))
        let response = try client.get(start.url("/feed.xml"))
        #expect(response.body == Array("<rss/>".utf8))
        #expect(response.redirectCount == 1)
        #expect(start.requests.first?.header("X-Token") == "s3cret")
        #expect(target.requests.count == 1)
        #expect(target.requests.first?.header("X-Token") == nil)
    }

    @Test func anEndlessRedirectNoteIsCutAndTheRedirectFollowed() throws {
        let note = Data(repeating: UInt8(ascii: "x"), count: 4 * 1024 * 1024)
        let server = try LoopbackServer(routes: [
            "/a": .fixed(status: 302, body: note, headers: [("Location", "/b")]),
            "/b": .fixed(body: Data("done".utf8)),
        ])
        let response = try HTTPClient().get(server.url("/a"))
        #expect(response.body == Array("done".utf8))
    }

    // MARK: QueuedSettings

    @Test func queuedSettingsKeepEverySettingButTheSecrets() throws {
        var http = HTTPSettings(
            userAgent: "agent/1", connectTimeout: 7, stallTimeout: 9, allowsInsecureRedirects: true, certificateAuthorities: "/ca.pem",
            proxy: "http://127.0.0.1:3128", cookies: false)
        http.headers = RequestHeaders(fields: ["X-Token: s3cret"], hosts: ["cdn.example.net"])
        // The CA file must exist: a stored setting is read as the file's would be.
        http.certificateAuthorities = "/etc/hostname"
        var settings = Settings()
        settings.episodesDirectory = "/srv/podcasts"
        settings.engine = .init(concurrency: 5, connectionsPerHost: 1, rateLimit: 1000, http: http, maxEpisodeSize: 1 << 30)
        settings.retry = RetryPolicy(retries: 4, firstWait: .milliseconds(500), budget: .seconds(600))
        settings.library = LibrarySettings(
            nameTemplate: try NameTemplate("{podcast}/{year}/{title}.{ext}"), portableNames: true, companions: [.chapters, .image],
            transcriptTypes: [.html], tag: true, playlist: true)
        settings.feedTimeout = .milliseconds(2500)
        settings.http.proxy = "http://proxy-user:pr0xy-pass@127.0.0.1:3128"
        let queued = QueuedSettings(settings, secretsFile: "0A-B.json")
        #expect(!queued.stored.contains("s3cret"))
        #expect(!queued.stored.contains("pr0xy-pass"))
        #expect(!queued.stored.contains("127.0.0.1:3128"))
        let read = try QueuedSettings(stored: queued.stored)
        #expect(read == queued)
        #expect(read.secretsFile == "0A-B.json")
        #expect(read.feedDeadlines.feed == .milliseconds(2500))
        let secrets = try #require(BatchSecrets.Contents(of: settings))
        #expect(secrets.headers == ["X-Token: s3cret"])
        #expect(secrets.proxy == "http://proxy-user:pr0xy-pass@127.0.0.1:3128")
        #expect(read.settings(secrets: secrets, fallbackDirectory: "/elsewhere") == settings.download(defaultEpisodesDirectory: "/x"))
    }

    @Test func sameSettingsGiveTheSameTextAndOlderRecordsAreCarriedOver() throws {
        var settings = Settings()
        settings.episodesDirectory = "/srv/podcasts"
        #expect(QueuedSettings(settings, secretsFile: nil).stored == QueuedSettings(settings, secretsFile: nil).stored)
        let arguments = try #require(LegacySettingsRecords.queued(#"["--episodes-dir","/old/dir","--concurrency","2"]"#))
        #expect(try QueuedSettings(stored: arguments).settings(secrets: nil, fallbackDirectory: "/default").episodesDirectory == "/old/dir")
        let fields = try #require(LegacySettingsRecords.queued(#"{"concurrency":5,"nameTemplate":"{title}.{ext}","firstWaitSeconds":0.5,"stallSpeed":1024}"#))
        let carried = try QueuedSettings(stored: fields).settings
        #expect(carried.engine.concurrency == 5)
        #expect(carried.library.nameTemplate.text == "{title}.{ext}")
        #expect(carried.retry.firstWait == .milliseconds(500))
    }

    @Test func aRecordThatNoLongerReadsIsAnErrorNotTheDefaults() throws {
        #expect(throws: StoredSettingsError.self) { try QueuedSettings(stored: "garbage") }
        #expect(throws: StoredSettingsError.self) { try QueuedSettings(stored: "{}") }
        let badTemplate = #"{"settings":{"name-template":"{title}.mp3"},"version":2}"#
        let error = try #require(throws: StoredSettingsError.self) { try QueuedSettings(stored: badTemplate) }
        #expect(error.reason.contains("name-template"))
        #expect(throws: StoredSettingsError.self) { try QueuedSettings(stored: #"{"settings":{},"version":3}"#) }
        #expect(throws: StoredSettingsError.self) { try QueuedSettings(stored: #"{"settings":{"concurency":3},"version":2}"#) }
    }
}
