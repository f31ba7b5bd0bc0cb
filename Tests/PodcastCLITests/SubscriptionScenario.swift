import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// What the subscription, `update` and selection tests share: shows served on a loopback server
/// whose feeds answer conditional requests and gain episodes on demand, homes that subscribe to
/// them, and the JSON documents of `subscriptions` and `update` read as dictionaries.
enum SubscriptionScenario {
    /// A home whose retries wait little, with any `extra` configuration lines.
    static func home(configuration extra: String = "") throws -> PodcastBinary {
        let podcast = try PodcastBinary()
        try podcast.writeConfiguration("retry-wait = 0.05\n" + extra)
        return podcast
    }

    /// Subscribes `podcast` to `show` with `options`, expecting success.
    static func subscribe(_ podcast: PodcastBinary, to show: ServedShow, _ options: [String] = []) async throws {
        let subscribed = try await podcast.run(["subscribe", show.feedURL] + options)
        #expect(subscribed.status == 0, "subscribe \(show.title): \(subscribed.stderr)")
    }

    /// The JSON document a run printed on stdout (empty when it printed none).
    static func document(_ stdout: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// The `feeds` of an `update --json` document, keyed by title.
    static func feeds(_ stdout: String) -> [String: [String: Any]] {
        let entries = document(stdout)["feeds"] as? [[String: Any]] ?? []
        return Dictionary(entries.map { ($0["title"] as? String ?? "", $0) }) { first, _ in first }
    }

    /// `podcast subscriptions --json`, keyed by title.
    static func subscriptions(_ podcast: PodcastBinary) async throws -> [String: [String: Any]] {
        let listed = try await podcast.run(["subscriptions", "--json"])
        #expect(listed.status == 0, "subscriptions: \(listed.stderr)")
        let entries = document(listed.stdout)["subscriptions"] as? [[String: Any]] ?? []
        return Dictionary(entries.map { ($0["title"] as? String ?? "", $0) }) { first, _ in first }
    }

    /// The names in `folder`, sorted (empty when it does not exist).
    static func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// The contents of `path`, nil when there is no such file.
    static func contents(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// The stderr lines of `result` that are not the `error:` lines.
    static func nonErrorLines(_ result: ChildProcess.Result) -> [String] {
        result.stderrLines.filter { !$0.hasPrefix("error:") }
    }
}

/// A podcast on a loopback server: its feed at `/<slug>/feed.xml`, answered conditionally (ETag,
/// Last-Modified, 304) with a new version each time it changes, and each episode's media as a
/// file with ranges at `/<slug>/media/<n>.mp3`. Episode n is published on 2026-11-01 plus n-1
/// days at 08:00 UTC and titled `Episode n`, so the file `update` makes of it is
/// `<Episodes>/<title>/2026-11-0n Episode n.mp3`.
final class ServedShow {
    /// One served episode.
    struct Episode {
        var number: Int
        var title: String
        var path: String
        var body: Data
        var published: Date
    }

    let server: LoopbackServer
    /// The podcast's title, and so its folder's name.
    let title: String
    let slug: String
    /// Where the feed is served; `move(to:_:)` changes it.
    private(set) var feedPath: String
    /// The 200s and 304s of the feed, over every version of it.
    let answers = ConditionalAnswers()
    /// Every episode published so far, oldest first.
    private(set) var episodes: [Episode] = []
    /// Prefixed to every episode's number to make its guid; changing it (then `serveFeed()`)
    /// churns every identity.
    var guidPrefix: String
    /// Extra elements of the channel, such as `<itunes:new-feed-url>`.
    private var channelExtras = ""
    /// Whether the feed's answers carry an ETag (Last-Modified they always carry).
    var sendsETag = true
    private let size: Int
    private var version = 0

    /// The first episode's publication: 2026-11-01 08:00 UTC.
    private static let firstPublication = Date(timeIntervalSince1970: 1_793_520_000)

    /// A show of `count` episodes of `size` bytes each, served at once.
    init(_ title: String, slug: String, episodes count: Int, size: Int = 12_000, on server: LoopbackServer) {
        self.server = server
        self.title = title
        self.slug = slug
        self.size = size
        guidPrefix = slug + "-"
        feedPath = "/\(slug)/feed.xml"
        addEpisodes(count, size: size)
        serveFeed()
    }

    /// The feed's URL.
    var feedURL: String { server.url(feedPath) }

    /// Adds `count` episodes (newer than every one before), of `size` bytes when given, and
    /// serves the feed's new version.
    func publish(_ count: Int = 1, size: Int? = nil) {
        addEpisodes(count, size: size ?? self.size)
        serveFeed()
    }

    /// Serves the feed as it is now, as a new version (new ETag and Last-Modified).
    func serveFeed() {
        server.setRoute(feedPath, nextVersion())
    }

    /// The feed as it is now, as a conditional route with the validators of a new version.
    private func nextVersion() -> ServerRoute {
        version += 1
        // A second later per version, so If-Modified-Since tells the versions apart too.
        let modified = Date(timeIntervalSince1970: 1_795_000_000 + Double(version))
        let etag = sendsETag ? "\"\(slug)-v\(version)\"" : nil
        return .conditional(body: feedXML, etag: etag, lastModified: Self.httpDate(modified), answers: answers)
    }

    /// How a feed tells its subscribers that it lives somewhere else now.
    enum Move {
        /// The old address answers `301 Moved Permanently` with the new one.
        case permanentRedirect
        /// The old address still serves the feed, which names the new one in `itunes:new-feed-url`.
        case newFeedURL
    }

    /// Serves the feed at `newPath` from now on, the old address telling of it as `move` says.
    func move(to newPath: String, _ move: Move) {
        let old = feedPath
        feedPath = newPath
        serveFeed()
        switch move {
        case .permanentRedirect:
            server.setRoute(old, .redirect(to: feedURL, status: 301))
        case .newFeedURL:
            let extras = channelExtras
            channelExtras += "<itunes:new-feed-url>\(feedURL)</itunes:new-feed-url>"
            server.setRoute(old, nextVersion())
            channelExtras = extras
        }
    }

    /// The feed document as it is now, newest episode first.
    var feedXML: Data {
        let items = episodes.reversed().map { episode in
            """
            <item><title>\(episode.title)</title><guid isPermaLink="false">\(guid(episode.number))</guid>
            <pubDate>\(Self.httpDate(episode.published))</pubDate>
            <enclosure url="\(server.url(episode.path))" length="\(episode.body.count)" type="audio/mpeg"/></item>
            """
        }
        return Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>\(title)</title><link>https://example.com/\(slug)</link>\(channelExtras)
            \(items.joined(separator: "\n"))
            </channel></rss>
            """.utf8)
    }

    /// The requests for the feed, in arrival order.
    var feedRequests: [RecordedRequest] {
        server.requests.filter { $0.path == feedPath }
    }

    /// The paths of the media requests of this show, in arrival order.
    var mediaRequests: [String] {
        server.requests.map(\.path).filter { $0.hasPrefix("/\(slug)/media/") }
    }

    /// The episode numbered `number` (1 is the oldest).
    func episode(_ number: Int) -> Episode {
        episodes[number - 1]
    }

    /// The guid the feed gives episode `number` now.
    func guid(_ number: Int) -> String {
        guidPrefix + String(number)
    }

    /// The paths of the episodes numbered `numbers`.
    func paths(_ numbers: Int...) -> [String] {
        numbers.map { episode($0).path }
    }

    /// The show's folder in `podcast`'s Episodes directory (or `episodesDirectory`).
    func folder(in podcast: PodcastBinary, episodesDirectory: String? = nil) -> String {
        (episodesDirectory ?? podcast.episodesDirectory) + "/" + title
    }

    /// The file name the default template gives episode `number`.
    func fileName(_ number: Int) -> String {
        let day = Calendar.utc.dateComponents([.year, .month, .day], from: episode(number).published)
        let date = String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0)
        return "\(date) \(episode(number).title).mp3"
    }

    /// The sorted file names of the episodes numbered `numbers`, as `names(in:)` lists them.
    func fileNames(_ numbers: Int...) -> [String] {
        numbers.map(fileName).sorted()
    }

    /// The bytes of episode `number` as `podcast` stored it, nil when there is no such file.
    func stored(_ number: Int, in podcast: PodcastBinary, episodesDirectory: String? = nil) -> Data? {
        SubscriptionScenario.contents(folder(in: podcast, episodesDirectory: episodesDirectory) + "/" + fileName(number))
    }

    /// The names in the show's folder (the `.partial` folder is elsewhere).
    func filesOnDisk(in podcast: PodcastBinary, episodesDirectory: String? = nil) -> [String] {
        SubscriptionScenario.names(in: folder(in: podcast, episodesDirectory: episodesDirectory))
    }

    private func addEpisodes(_ count: Int, size: Int) {
        let seedBase = slug.utf8.reduce(UInt64(17)) { $0 &* 31 &+ UInt64($1) } &* 1_000
        for _ in 0..<count {
            let number = episodes.count + 1
            let path = "/\(slug)/media/\(number).mp3"
            let body = ResumeScenario.media(seed: seedBase &+ UInt64(number), size: size)
            episodes.append(Episode(
                number: number, title: "Episode \(number)", path: path, body: body,
                published: Self.firstPublication.addingTimeInterval(Double(number - 1) * 86_400)))
            server.setRoute(path, .file(body: body, contentType: "audio/mpeg", etag: "\"\(slug)-\(number)\""))
        }
    }

    /// The IMF-fixdate of `date`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

extension Calendar {
    /// The Gregorian calendar in UTC, in which podcast names files and reads `--since`.
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar
    }()
}
