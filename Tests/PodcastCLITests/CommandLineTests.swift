import Foundation
import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Testing

/// The command line itself: unknown commands, help, version and the wording of usage errors.
@Suite(.timeLimit(.minutes(5))) struct CommandLineTests {
    @Test func aMistypedCommandIsBadUsageNamingTheClosestOne() async throws {
        let result = try await PodcastBinary().run(["serach", "history"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: podcast has no command 'serach' (did you mean search?); see 'podcast --help' for the commands\n")
    }

    @Test func helpForACommandThatDoesNotExistIsBadUsage() async throws {
        let result = try await PodcastBinary().run(["help", "nosuch"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: podcast has no command 'nosuch'; see 'podcast --help' for the commands\n")
    }

    @Test func helpForARealCommandStillWorks() async throws {
        let result = try await PodcastBinary().run(["help", "status"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: Show "))
    }

    @Test func versionNamesTheProgram() async throws {
        let result = try await PodcastBinary().run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "podcast \(podcastVersion)\n")
    }

    @Test func aSuggestedOptionEndsItsSentenceBeforeThePointerToHelp() async throws {
        let result = try await PodcastBinary().run(["search", "--limt", "3", "x"])
        #expect(result.status == 64)
        #expect(result.stderr == "error: Unknown option '--limt'. Did you mean '--limit'? See 'podcast search --help'\n")
    }

    @Test func helpIsWrappedByTheParserNotMidSentence() async throws {
        let result = try await PodcastBinary().run(["search", "--help"], environment: ["COLUMNS": "200"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("lists the episodes of result N until the next search, whichever directory it asked."), "\(result.stdout)")
    }

    @Test func stallTimeoutHelpGivesItsDefault() async throws {
        let result = try await PodcastBinary().run(["download", "--help"], environment: ["COLUMNS": "300"])
        #expect(result.stdout.contains("continues from where it stopped (default 60; stall-timeout in [http] of the configuration file)"), "\(result.stdout)")
    }
}

/// What `<feed>` may be, and what a mistaken one is told.
@Suite(.timeLimit(.minutes(5))) struct FeedArgumentTests {
    private static let feed = Data("""
        <?xml version="1.0"?><rss version="2.0"><channel><title>File Show</title>
        <item><title>Only</title><guid>f-1</guid><enclosure url="a.mp3" length="10" type="audio/mpeg"/></item>
        </channel></rss>
        """.utf8)

    @Test func aFileURLIsReadAsTheFile() async throws {
        let folder = try TemporaryDirectory(prefix: "feed-file")
        let path = folder.path("my feed.xml")
        try Self.feed.write(to: URL(fileURLWithPath: path))
        let result = try await PodcastBinary().run(["episodes", "file://" + path.replacing(" ", with: "%20"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"title\":\"File Show\""))
    }

    @Test(arguments: [
        ("127.0.0.1:18081/feed.xml", "error: 127.0.0.1:18081/feed.xml is not a file here and has no scheme; did you mean http://127.0.0.1:18081/feed.xml?\n"),
        ("feeds.example.com/show.rss", "error: feeds.example.com/show.rss is not a file here and has no scheme; did you mean http://feeds.example.com/show.rss?\n"),
        ("ftp://example.com/feed.xml", "error: unsupported scheme ftp in ftp://example.com/feed.xml; give an http(s) URL, a file:// URL, a file, a number from the last search, or itunes:<id>\n"),
        ("itunes:abc", "error: itunes:abc needs a numeric id, such as itunes:1440215666 (the number in an Apple Podcasts link)\n"),
    ])
    func aMistakenFeedIsBadUsageSayingWhatWasMeant(argument: String, message: String) async throws {
        let result = try await PodcastBinary().run(["episodes", argument])
        #expect(result.status == 64)
        #expect(result.stderr == message)
    }

    @Test func anEmptyLocalFileIsCalledAnEmptyFile() async throws {
        let folder = try TemporaryDirectory(prefix: "feed-file")
        try Data().write(to: URL(fileURLWithPath: folder.path("empty.xml")))
        let result = try await PodcastBinary().run(["episodes", folder.path("empty.xml")])
        #expect(result.status == 1)
        #expect(result.stderr == "error: feed \(folder.path("empty.xml")): the file is empty; check the path, or save the feed again\n")
    }

    @Test func aMissingPlainFileIsStillReportedAsAFile() async throws {
        let result = try await PodcastBinary().run(["episodes", "no-such-feed.xml"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: feed no-such-feed.xml: "), "\(result.stderr)")
    }
}
