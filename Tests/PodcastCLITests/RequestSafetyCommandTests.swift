import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// The built binary keeps what a user hands it safe: `--header`s reach only the servers they were
/// given for, a background batch keeps them out of the state store, credentials in a feed's URLs
/// are never printed, and a redirect from https to plain http is refused unless allowed.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RequestSafetyCommandTests {
    private static let secret = "s3cret-token-4711"

    /// A home that has listed a one-episode feed served by `server`, whose enclosure is `enclosure`.
    private func listedHome(enclosure: String, on server: LoopbackServer, configuration: String = "") async throws -> PodcastBinary {
        ResumeScenario.serveFeed([.init(title: "Safe", path: enclosure, length: nil)], on: server)
        return try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: configuration)
    }

    /// Every byte the home's state store files hold (the database and its write-ahead log).
    private func storeBytes(_ podcast: PodcastBinary) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: podcast.stateDirectory)) ?? []
        return names.filter { $0.hasPrefix("state.sqlite") }.map { name in
            String(decoding: FileManager.default.contents(atPath: podcast.stateDirectory + "/" + name) ?? Data(), as: UTF8.self)
        }.joined()
    }

    // MARK: Headers

    @Test func aHeaderGoesToTheServerTheDownloadStartsAtAndNotWhereItIsRedirected() async throws {
        let audio = ResumeScenario.media(seed: 71, size: 50_000)
        let cdn = try LoopbackServer(routes: ["/ep.mp3": .fixed(body: audio, headers: [("Content-Type", "audio/mpeg")])])
        let server = try LoopbackServer()
        // Another origin: same address, another port, another name.
        server.setRoute("/media/ep.mp3", .redirect(to: cdn.url("/ep.mp3").replacing("127.0.0.1", with: "localhost")))
        let podcast = try await listedHome(enclosure: "/media/ep.mp3", on: server)

        let result = try await podcast.run(["download", "1", "--header", "X-Token: \(Self.secret)"])
        #expect(result.status == 0, "download: \(result.stderr)")
        #expect(podcast.finishedBytes(titled: "Safe") == audio)
        #expect(ResumeScenario.requests(server, path: "/media/ep.mp3").first?.header("X-Token") == Self.secret)
        #expect(cdn.requests.count == 1)
        #expect(cdn.requests.first?.header("X-Token") == nil)
    }

    @Test func withHeaderHostTheHeaderGoesOnlyToThatHostAlsoAfterARedirect() async throws {
        let audio = ResumeScenario.media(seed: 72, size: 50_000)
        let cdn = try LoopbackServer(routes: ["/ep.mp3": .fixed(body: audio, headers: [("Content-Type", "audio/mpeg")])])
        let server = try LoopbackServer()
        server.setRoute("/media/ep.mp3", .redirect(to: cdn.url("/ep.mp3").replacing("127.0.0.1", with: "localhost")))
        let podcast = try await listedHome(enclosure: "/media/ep.mp3", on: server)

        let result = try await podcast.run(["download", "1", "--header", "X-Token: \(Self.secret)", "--header-host", "localhost"])
        #expect(result.status == 0, "download: \(result.stderr)")
        #expect(podcast.finishedBytes(titled: "Safe") == audio)
        #expect(ResumeScenario.requests(server, path: "/media/ep.mp3").first?.header("X-Token") == nil)
        #expect(cdn.requests.first?.header("X-Token") == Self.secret)
    }

    @Test func aMalformedHeaderIsABadUsage() async throws {
        let podcast = try PodcastBinary()
        for arguments in [["--header", "no colon"], ["--header", "Bad Name: x"], ["--header-host", "cdn.example.com"],
                          ["--header", "X: y", "--header-host", "http://cdn.example.com/"]] {
            let result = try await podcast.run(["download", "1"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderrLines.first?.hasPrefix("error: --header") == true, "\(arguments): \(result.stderr)")
        }
    }

    /// The files under `directory` (recursively) whose bytes contain `secret`, by path.
    private func filesHolding(_ secret: String, under directory: String) -> [String] {
        let paths = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return paths.filter { path in
            FileManager.default.contents(atPath: directory + "/" + path).map { $0.range(of: Data(secret.utf8)) != nil } ?? false
        }
    }

    @Test func aBackgroundBatchKeepsItsSecretsOutOfTheStoreAndRemovesThemWhenItEnds() async throws {
        let server = try LoopbackServer()
        let episode = try #require(BackgroundScenario.show(count: 1, size: 200_000, on: server).first)
        let held = episode.gate
        // The loopback server doubles as the proxy (it routes absolute-form targets by path).
        let proxyPassword = "pr0xy-pass-0815"
        let configuration = "stall-timeout = 1\nproxy = \"http://proxyuser:\(proxyPassword)@127.0.0.1:\(server.port)\"\n"
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"), configuration: configuration)
        let guardWorker = WorkerGuard(podcast)
        defer { withExtendedLifetime(guardWorker) {} }
        let queued = try await podcast.run(["download", "1", "--background", "--header", "X-Token: \(Self.secret)"])
        #expect(queued.status == 0, "download --background: \(queued.stderr)")
        #expect(!queued.stderr.contains(Self.secret))

        let secrets = podcast.stateDirectory + "/secrets"
        let files = try FileManager.default.contentsOfDirectory(atPath: secrets)
        #expect(files.count == 1)
        let file = secrets + "/" + (files.first ?? "")
        let mode = (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o600)
        let kept = String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self)
        #expect(kept.contains(Self.secret) && kept.contains(proxyPassword))
        let reached = try await ResumeScenario.wait { ResumeScenario.requests(server, path: episode.path).count >= 1 }
        let log = { String(decoding: FileManager.default.contents(atPath: podcast.stateDirectory + "/worker.log") ?? Data(), as: UTF8.self) }
        #expect(reached, "worker log: \(log())")
        for secret in [Self.secret, proxyPassword] {
            #expect(!storeBytes(podcast).contains(secret), "the state store holds \(secret)")
        }

        held.open()
        let status = try await BackgroundScenario.waitForStatus(podcast) { status in
            BackgroundScenario.downloads(status)[episode.title]?["state"] as? String == "downloaded"
        }
        #expect(BackgroundScenario.downloads(status)[episode.title]?["state"] as? String == "downloaded")
        #expect(BackgroundScenario.sha256(finished: episode, in: podcast) == BackgroundScenario.sha256(episode.body))
        let media = ResumeScenario.requests(server, path: episode.path)
        #expect(media.allSatisfy { $0.header("X-Token") == Self.secret })
        // The worker went through the proxy with its credentials, read from the secrets file.
        let basic = "Basic " + Data("proxyuser:\(proxyPassword)".utf8).base64EncodedString()
        #expect(!media.isEmpty && media.allSatisfy { $0.header("Proxy-Authorization") == basic })
        let removed = try await ResumeScenario.wait(upTo: .seconds(15)) {
            ((try? FileManager.default.contentsOfDirectory(atPath: secrets)) ?? ["still"]).isEmpty
        }
        #expect(removed, "the secrets file outlived its batch")
        for secret in [Self.secret, proxyPassword] {
            #expect(filesHolding(secret, under: podcast.stateDirectory).isEmpty, "\(secret) is kept at rest")
        }
    }

    // MARK: Credentials

    @Test func credentialsInAnEnclosureURLAreNeverPrinted() async throws {
        let server = try LoopbackServer(routes: ["/missing.mp3": .status(404)])
        let enclosure = "http://listener:hunter2pass@127.0.0.1:\(server.port)/missing.mp3"
        let podcast = try await listedHome(enclosure: enclosure, on: server)

        let download = try await podcast.run(["download", "1", "--json"])
        #expect(download.status == 1, "download: \(download.stderr)")
        #expect(ResumeScenario.requests(server, path: "/missing.mp3").first?.header("Authorization")?.hasPrefix("Basic ") == true)
        let status = try await podcast.run(["status", "--json"])
        let episodes = try await podcast.run(["episodes", server.url("/feed.xml"), "--json"])
        for (name, output) in [("download", download.stdout + download.stderr), ("status", status.stdout + status.stderr),
                               ("episodes", episodes.stdout + episodes.stderr)] {
            #expect(!output.contains("hunter2pass"), "\(name) printed the password: \(output)")
        }
        #expect(download.stderr.contains("http://***@127.0.0.1:\(server.port)/missing.mp3"), "download: \(download.stderr)")
    }

    /// A two-episode feed at `/private/feed.xml` whose feed and media answer only with the Basic
    /// credentials of `Self.feedUserinfo` (401 otherwise); the enclosures are relative, so they
    /// are on the feed's server. Returns the feed's address with the credentials, and the media.
    private func privateFeed(on server: LoopbackServer) -> (url: String, media: [Data]) {
        let basic = "Basic " + Data(Self.feedUserinfo.utf8).base64EncodedString()
        let guarded = { (route: ServerRoute) in ServerRoute.handler { $0.header("Authorization") == basic ? route : .status(401) } }
        let media = [ResumeScenario.media(seed: 81, size: 40_000), ResumeScenario.media(seed: 82, size: 60_000)]
        let items = media.indices.map { index in
            """
            <item><title>Private \(index + 1)</title><guid>p-\(index + 1)</guid><pubDate>Tue, 10 Nov 2026 0\(index + 1):00:00 GMT</pubDate>
            <enclosure url="ep\(index + 1).mp3" type="audio/mpeg"/></item>
            """
        }
        let feed = "<rss><channel><title>\(ResumeScenario.podcastTitle)</title>\(items.joined())</channel></rss>"
        server.setRoute("/private/feed.xml", guarded(.fixed(body: Data(feed.utf8))))
        for (index, body) in media.enumerated() {
            server.setRoute("/private/ep\(index + 1).mp3", guarded(.fixed(body: body, headers: [("Content-Type", "audio/mpeg")])))
        }
        return (server.url("/private/feed.xml").replacing("http://", with: "http://\(Self.feedUserinfo)@"), media)
    }

    private static let feedUserinfo = "member:f33d-pass-9931"

    /// The files under the home (state, configuration, Episodes) whose bytes hold the feed's password.
    private func filesHoldingTheFeedPassword(_ podcast: PodcastBinary) -> [String] {
        filesHolding("f33d-pass-9931", under: podcast.home.path)
    }

    @Test func aFeedAddressesCredentialsReachItsServerButAreKeptNowhere() async throws {
        let server = try LoopbackServer()
        let (feedURL, media) = privateFeed(on: server)
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("retry-wait = 0.05\n")

        let listed = try await podcast.run(["episodes", feedURL])
        #expect(listed.status == 0, "episodes: \(listed.stderr)")
        let downloaded = try await podcast.run(["download", feedURL, "1", "--with", "info"])
        #expect(downloaded.status == 0, "download: \(downloaded.stderr)")
        #expect(podcast.finishedBytes(titled: "Private 2") == media[1])
        let shown = try await podcast.run(["show", "2"])
        #expect(shown.status == 0 && shown.stdout.contains("Private 1"), "show: \(shown.stderr)")
        #expect(filesHoldingTheFeedPassword(podcast).isEmpty, "the feed's password is kept at rest")

        // The listing keeps the bare address: without the credentials given again, the server
        // refuses, and the error says what to do.
        let bare = try await podcast.run(["download", "2"])
        #expect(bare.status == 1, "download 2: \(bare.stderr)")
        #expect(bare.stderr.contains("credentials"), "download 2: \(bare.stderr)")
        #expect(podcast.finishedBytes(titled: "Private 1") == nil)
        #expect(!(bare.stdout + bare.stderr).contains("f33d-pass-9931"))
    }

    @Test func aBackgroundBatchKeepsAFeedAddressesCredentialsOnlyWhileItRuns() async throws {
        let server = try LoopbackServer()
        let (feedURL, media) = privateFeed(on: server)
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("retry-wait = 0.05\n")
        let guardWorker = WorkerGuard(podcast)
        defer { withExtendedLifetime(guardWorker) {} }

        let queued = try await podcast.run(["download", feedURL, "all", "--background"])
        #expect(queued.status == 0, "download --background: \(queued.stderr)")
        let status = try await BackgroundScenario.waitForStatus(podcast) { status in
            let downloads = BackgroundScenario.downloads(status)
            return ["Private 1", "Private 2"].allSatisfy { downloads[$0]?["state"] as? String == "downloaded" }
        }
        #expect(BackgroundScenario.downloads(status)["Private 1"]?["state"] as? String == "downloaded")
        #expect(podcast.finishedBytes(titled: "Private 1") == media[0])
        #expect(podcast.finishedBytes(titled: "Private 2") == media[1])
        let secrets = podcast.stateDirectory + "/secrets"
        let removed = try await ResumeScenario.wait(upTo: .seconds(15)) {
            !BackgroundScenario.workerRuns(podcast) && ((try? FileManager.default.contentsOfDirectory(atPath: secrets)) ?? []).isEmpty
        }
        #expect(removed, "the secrets file outlived its batch")
        #expect(filesHoldingTheFeedPassword(podcast).isEmpty, "the feed's password is kept at rest")
    }

    /// A download of a feed named with its credentials that stopped part-way keeps its partial
    /// file through a later run without them, which the server refuses (401) with advice that
    /// shows how to name them (no URL the redaction would mask), so the run that names them
    /// again goes on from it, as README says.
    @Test func aRunRefusedForWantOfCredentialsKeepsThePartialFileForTheRunThatNamesThem() async throws {
        let server = try LoopbackServer()
        let basic = "Basic " + Data(Self.feedUserinfo.utf8).base64EncodedString()
        let body = ResumeScenario.media(seed: 84, size: 300_000)
        let file = { (fault: BodyFault) in ServerRoute.file(body: body, contentType: "audio/mpeg", etag: "\"c1\"", fault: fault) }
        // Asked with the credentials: cut after 100 000 bytes, then busy (with retries = 1 the
        // first run gives up there, its partial file kept), then whole.
        let media = ServerRoute.sequence([file(.cut(afterBytes: 100_000)), .status(503), file(.none)])
        server.setRoute("/private/ep.mp3", .handler { $0.header("Authorization") == basic ? media : .status(401) })
        let feed = """
            <rss><channel><title>\(ResumeScenario.podcastTitle)</title><item><title>Partial</title><guid>c-1</guid>
            <pubDate>Tue, 10 Nov 2026 08:00:00 GMT</pubDate><enclosure url="ep.mp3" type="audio/mpeg"/></item></channel></rss>
            """
        server.setRoute("/private/feed.xml", .handler { $0.header("Authorization") == basic ? .fixed(body: Data(feed.utf8)) : .status(401) })
        let feedURL = server.url("/private/feed.xml").replacing("http://", with: "http://\(Self.feedUserinfo)@")
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("retry-wait = 0.05\nretries = 1\n")

        let cut = try await podcast.run(["download", feedURL, "1"])
        #expect(cut.status == 1, "download <feed> 1: \(cut.stderr)")
        #expect(podcast.partialFiles().map(\.size) == [100_000])

        let refused = try await podcast.run(["download", "1"])
        #expect(refused.status == 1, "download 1: \(refused.stderr)")
        #expect(refused.stderr.contains("the server wants credentials: name the feed with them in the command (user:password@ after https://)"),
                "download 1: \(refused.stderr)")
        #expect(podcast.partialFiles().map(\.size) == [100_000])

        let named = try await podcast.run(["download", feedURL, "1"])
        #expect(named.status == 0, "download <feed> 1 again: \(named.stderr)")
        #expect(podcast.finishedBytes(titled: "Partial") == body)
        #expect(ResumeScenario.requests(server, path: "/private/ep.mp3").last?.header("Range") == ResumeScenario.range(from: 100_000))
        #expect(filesHoldingTheFeedPassword(podcast).isEmpty, "the feed's password is kept at rest")
    }

    /// An interrupted download of a feed named with its credentials points to running the
    /// command again, not to `podcast resume`, which has not got them (they are kept for the run
    /// only) and would be refused.
    @Test func anInterruptedDownloadOfAFeedNamedWithCredentialsPointsToTheCommandNotToResume() async throws {
        let server = try LoopbackServer()
        let basic = "Basic " + Data(Self.feedUserinfo.utf8).base64EncodedString()
        let body = ResumeScenario.media(seed: 85, size: 300_000)
        let stalling = ServerRoute.stall(afterBytes: 100_000, body: body, headers: [("Content-Type", "audio/mpeg"), ("ETag", "\"s1\"")])
        server.setRoute("/private/ep.mp3", .handler { $0.header("Authorization") == basic ? stalling : .status(401) })
        let feed = """
            <rss><channel><title>\(ResumeScenario.podcastTitle)</title><item><title>Stalled</title><guid>s-1</guid>
            <pubDate>Tue, 10 Nov 2026 08:00:00 GMT</pubDate><enclosure url="ep.mp3" type="audio/mpeg"/></item></channel></rss>
            """
        server.setRoute("/private/feed.xml", .handler { $0.header("Authorization") == basic ? .fixed(body: Data(feed.utf8)) : .status(401) })
        let feedURL = server.url("/private/feed.xml").replacing("http://", with: "http://\(Self.feedUserinfo)@")
        let podcast = try PodcastBinary()

        let interrupted = try await podcast.interruptedDownload([feedURL, "1"], once: 100_000)
        #expect(interrupted.stderr.contains("paused with their data kept; run this command again to continue"), "\(interrupted.stderr)")
        #expect(!interrupted.stderr.contains("podcast resume"), "\(interrupted.stderr)")
    }

    /// A background batch whose secrets file cannot be written is not queued, and the error
    /// names what it could not keep: a feed's credentials too, not only headers and a proxy.
    @Test func aBackgroundBatchThatCannotKeepAFeedsCredentialsSaysSoAndQueuesNothing() async throws {
        let server = try LoopbackServer()
        let (feedURL, _) = privateFeed(on: server)
        let podcast = try PodcastBinary()
        try FileManager.default.createDirectory(atPath: podcast.stateDirectory, withIntermediateDirectories: true)
        // A file where the secrets directory goes.
        #expect(FileManager.default.createFile(atPath: podcast.stateDirectory + "/secrets", contents: Data()))

        let queued = try await podcast.run(["download", feedURL, "all", "--background"])
        #expect(queued.status == 1, "download --background: \(queued.stderr)")
        #expect(queued.stderr.hasPrefix("error: cannot keep the secrets (--header values, proxy, a feed's credentials) for the background worker: "),
                "download --background: \(queued.stderr)")
        #expect(BackgroundScenario.downloads(try await BackgroundScenario.status(podcast)).isEmpty)
    }

    /// At a terminal, `episodes` of a feed named with its credentials hints at naming the feed
    /// again to download, since `download 1` from the listing has not got them (401); a feed
    /// named without them keeps the short hint.
    @Test func theDownloadHintAfterAListingOfAFeedNamedWithCredentialsNamesTheFeed() async throws {
        let server = try LoopbackServer()
        let (feedURL, _) = privateFeed(on: server)
        let podcast = try PodcastBinary()

        let named = try TerminalScenario.start(podcast, ["episodes", feedURL], rows: 24, columns: 160)
        #expect(await named.finish() == 0, "\(named.text)")
        #expect(named.text.contains("Download with: podcast download <the feed with its credentials> 1   (or 1-3, 2,5, all)"), "\(named.text)")

        server.setRoute("/public.xml", .fixed(body: Data("<rss><channel><title>Open</title><item><title>O</title><guid>o</guid></item></channel></rss>".utf8)))
        let open = try TerminalScenario.start(podcast, ["episodes", server.url("/public.xml")], rows: 24, columns: 160)
        #expect(await open.finish() == 0, "\(open.text)")
        #expect(open.text.contains("Download with: podcast download 1   (or 1-3, 2,5, all)"), "\(open.text)")
    }

    /// What `ps` shows of a running download (`/proc/<pid>/cmdline`): the feed's credentials
    /// and token, and the header's value, blanked byte for byte; the rest as typed.
    @Test func theProcessListShowsNoSecretOfTheArguments() async throws {
        let server = try LoopbackServer(routes: ["/feed.xml": .noResponse])
        let podcast = try PodcastBinary()
        let feed = server.url("/feed.xml?token=t0k3n-42&page=1").replacing("http://", with: "http://member:pa55-word@")
        let download = try ChildProcess(
            builtExecutable(named: "podcast"), ["download", feed, "1", "--header", "X-Key: \(Self.secret)"],
            environment: podcast.runEnvironment)
        #expect(try await ResumeScenario.wait { !ResumeScenario.requests(server, path: "/feed.xml").isEmpty }, "the feed was never asked for")
        let shown = String(decoding: FileManager.default.contents(atPath: "/proc/\(download.pid)/cmdline") ?? Data(), as: UTF8.self)
        kill(download.pid, SIGKILL)
        _ = await download.finish(within: .seconds(10))

        let arguments = shown.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
        let blanked = String(repeating: "*", count: "member:pa55-word".count)
        #expect(arguments.contains("http://\(blanked)@127.0.0.1:\(server.port)/feed.xml?token=********&page=1"), "\(arguments)")
        #expect(arguments.contains("X-Key: " + String(repeating: "*", count: Self.secret.count)), "\(arguments)")
        for secret in ["pa55-word", "t0k3n-42", Self.secret] { #expect(!shown.contains(secret), "ps shows \(secret): \(arguments)") }
        #expect(ResumeScenario.requests(server, path: "/feed.xml").first?.query == "token=t0k3n-42&page=1", "the request still has them")
    }

    // MARK: https to http

    /// An https nginx (its certificate the only one the home trusts) whose `/ep.mp3` and
    /// `/moved.xml` redirect to the plain-http `plain` server, and a home that has listed its feed.
    private func secureScenario(plain: LoopbackServer, audio: Data) async throws -> (NginxServer, PodcastBinary, SelfSignedCertificate) {
        let certificate = try await SelfSignedCertificate()
        let nginx = try await NginxServer(certificate: certificate, directives: """
            location = /ep.mp3 { return 302 \(plain.url("/ep.mp3")); }
            location = /moved.xml { return 301 \(plain.url("/feed.xml")); }
            """)
        plain.setRoute("/ep.mp3", .fixed(body: audio, headers: [("Content-Type", "audio/mpeg")]))
        let feed = """
            <rss><channel><title>\(ResumeScenario.podcastTitle)</title><item><title>Safe</title><guid>s-1</guid>
            <pubDate>Tue, 10 Nov 2026 08:00:00 GMT</pubDate><enclosure url="\(nginx.url("/ep.mp3"))" type="audio/mpeg"/></item>
            </channel></rss>
            """
        try nginx.serve(Data(feed.utf8), at: "feed.xml")
        plain.setRoute("/feed.xml", .fixed(body: Data(feed.utf8)))
        let podcast = try await ResumeScenario.listedHome(feedURL: nginx.url("/feed.xml"), configuration: "ca-file = \"\(certificate.certificate)\"\n")
        return (nginx, podcast, certificate)
    }

    @Test func aDownloadRedirectedFromHTTPSToPlainHTTPIsRefusedUnlessAllowed() async throws {
        guard NginxServer.isAvailable else { return }
        let plain = try LoopbackServer()
        let audio = ResumeScenario.media(seed: 73, size: 40_000)
        let (nginx, podcast, certificate) = try await secureScenario(plain: plain, audio: audio)
        defer { withExtendedLifetime(certificate) {} }

        let refused = try await podcast.run(["download", "1"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("refused the redirect from https to plain http (\(plain.url("/ep.mp3")))"), "download: \(refused.stderr)")
        #expect(plain.requestCount(path: "/ep.mp3") == 0)
        #expect(podcast.finishedFile(titled: "Safe") == nil)

        let allowed = try await podcast.run(["download", "1", "--allow-insecure-redirects"])
        #expect(allowed.status == 0, "download --allow-insecure-redirects: \(allowed.stderr)")
        #expect(podcast.finishedBytes(titled: "Safe") == audio)
        await nginx.stop()
    }

    @Test func aFeedMovedFromHTTPSToPlainHTTPIsRefusedAndNotSavedAsItsAddress() async throws {
        guard NginxServer.isAvailable else { return }
        let plain = try LoopbackServer()
        let (nginx, podcast, certificate) = try await secureScenario(plain: plain, audio: Data())

        let refused = try await podcast.run(["episodes", nginx.url("/moved.xml")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("refused the redirect from https to plain http"), "episodes: \(refused.stderr)")
        #expect(plain.requestCount(path: "/feed.xml") == 0)

        try podcast.writeConfiguration("ca-file = \"\(certificate.certificate)\"\nallow-insecure-redirects = true\n")
        let allowed = try await podcast.run(["episodes", nginx.url("/moved.xml")])
        #expect(allowed.status == 0, "episodes with allow-insecure-redirects: \(allowed.stderr)")
        #expect(plain.requestCount(path: "/feed.xml") == 1)
        await nginx.stop()
    }
}
