import Foundation
import PodcastTestSupport
import Testing

/// Every selection word and filter of `podcast download`, and downloading straight from a feed
/// (URL, path, `file://` URL, `itunes:<id>`), through the built binary. The show has eight
/// episodes, one a day from 2026-11-01 08:00 UTC; listing number n is episode 9-n.
@Suite(.timeLimit(.minutes(5))) struct SelectionCommandTests {
    /// A served show of eight episodes and a fresh home (`itunes` its iTunes API when given).
    private func servedShow(itunes: Bool = false) throws -> (ServedShow, PodcastBinary) {
        let server = try LoopbackServer()
        let show = ServedShow("Selection Show", slug: "selection", episodes: 8, size: 4_000, on: server)
        let podcast = try PodcastBinary(itunes: itunes ? server : nil)
        try podcast.writeConfiguration("retry-wait = 0.05\n")
        return (show, podcast)
    }

    /// A served show of eight episodes and a home that has listed it.
    private func listed() async throws -> (ServedShow, PodcastBinary) {
        let (show, podcast) = try servedShow()
        let listing = try await podcast.run(["episodes", show.feedURL])
        #expect(listing.status == 0, "\(listing.stderr)")
        return (show, podcast)
    }

    /// Runs `download arguments…`, expecting exit 0, and returns the episode numbers (1 oldest)
    /// requested by this run, sorted.
    private func download(_ arguments: [String], from show: ServedShow, in podcast: PodcastBinary) async throws -> [Int] {
        let before = show.mediaRequests.count
        let result = try await podcast.run(["download"] + arguments)
        #expect(result.status == 0, "download \(arguments): \(result.stderr)")
        return show.mediaRequests.dropFirst(before).compactMap { path in
            show.episodes.first { $0.path == path }?.number
        }.sorted()
    }

    @Test func sixToTheEndSelectsTheOldestOfTheListing() async throws {
        let (show, podcast) = try await listed()
        #expect(try await download(["6-"], from: show, in: podcast) == [1, 2, 3])
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1, 2, 3))
    }

    @Test func newSelectsOnlyWhatIsNotDownloaded() async throws {
        let (show, podcast) = try await listed()
        #expect(try await download(["1-3", "5"], from: show, in: podcast) == [4, 6, 7, 8])
        let result = try await podcast.run(["download", "new", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let titles = ResumeScenario.results(result.stdout).compactMap { $0["title"] as? String }.sorted()
        #expect(titles == ["Episode 1", "Episode 2", "Episode 3", "Episode 5"], "\(result.stdout)")
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1, 2, 3, 4, 5, 6, 7, 8))
        #expect(show.mediaRequests.count == 8, "each once: \(show.mediaRequests)")
    }

    /// Days are UTC and inclusive at both ends; a time narrows to the instant.
    @Test func sinceAndUntilAreInclusiveUTCDates() async throws {
        let (show, podcast) = try await listed()
        #expect(try await download(["all", "--since", "2026-11-03", "--until", "2026-11-05"], from: show, in: podcast) == [3, 4, 5])
        #expect(try await download(["all", "--since", "2026-11-07T08:00"], from: show, in: podcast) == [7, 8])
        #expect(try await download(["all", "--until", "2026-11-01T08:00"], from: show, in: podcast) == [1])
        #expect(show.filesOnDisk(in: podcast) == show.fileNames(1, 3, 4, 5, 7, 8))
    }

    @Test func matchIsACaseInsensitiveRegexOnTheTitle() async throws {
        let (show, podcast) = try await listed()
        #expect(try await download(["all", "--match", "^EPISODE [35]$"], from: show, in: podcast) == [3, 5])
    }

    @Test func latestTakesTheNewestOfWhatIsLeft() async throws {
        let (show, podcast) = try await listed()
        #expect(try await download(["all", "--match", "[1-4]$", "--latest", "2"], from: show, in: podcast) == [3, 4])
        // 6- is episodes 3, 2 and 1; the newest two are 3 (there already, skipped) and 2.
        #expect(try await download(["6-", "--latest", "2"], from: show, in: podcast) == [2])
    }

    @Test func aSelectionMatchingNothingSaysSoAndExitsZero() async throws {
        let (show, podcast) = try await listed()
        let result = try await podcast.run(["download", "all", "--match", "no such title", "--since", "2026-11-02"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("no episode matches"), "\(result.stderr)")
        #expect(show.mediaRequests.isEmpty)
        #expect(show.filesOnDisk(in: podcast).isEmpty)
    }

    @Test(arguments: [
        ["--match", "(unclosed"], ["--since", "2026-13-45"], ["--until", "tomorrow"], ["--since", "2026-11-04T25:00"], ["--latest", "0"],
    ])
    func aBadRegexDateOrCountIsBadUsage(_ filter: [String]) async throws {
        let (show, podcast) = try await listed()
        let result = try await podcast.run(["download", "all"] + filter)
        #expect(result.status == 64, "\(filter): \(result.stderr)")
        #expect(result.stderrLines.count == 1 && result.stderrLines.first?.hasPrefix("error:") == true, "\(result.stderr)")
        #expect(show.mediaRequests.isEmpty)
    }

    /// A day the month does not have is a mistake to point out, not the first days of the next month.
    @Test(arguments: ["2026-11-31", "2026-02-30", "2027-02-29"])
    func aDayTheMonthDoesNotHaveIsBadUsage(_ day: String) async throws {
        let (show, podcast) = try await listed()
        for option in ["--since", "--until"] {
            let result = try await podcast.run(["download", "all", option, day])
            #expect(result.status == 64, "\(option) \(day): \(result.stderr)")
            #expect(result.stderrLines.first?.hasPrefix("error: \(option)") == true, "\(result.stderr)")
        }
        #expect(show.mediaRequests.isEmpty)
    }

    @Test func downloadFromAFeedURLTakesTheNewestEpisode() async throws {
        let (show, podcast) = try servedShow()
        #expect(try await download([show.feedURL], from: show, in: podcast) == [8])
        #expect(show.stored(8, in: podcast) == show.episode(8).body)
        #expect(try await download([show.feedURL, "2-3"], from: show, in: podcast) == [6, 7])
    }

    @Test func downloadFromAFeedFileTakesItsSelection() async throws {
        let (show, podcast) = try servedShow()
        let file = podcast.home.path("show.xml")
        try show.feedXML.write(to: URL(filePath: file))
        #expect(try await download([file, "2"], from: show, in: podcast) == [7])
        #expect(try await download([file, "--latest", "3"], from: show, in: podcast) == [6, 8], "7 is there already")
        #expect(show.feedRequests.isEmpty, "the file was read, not the served feed")
    }

    /// The URL has a space, percent-encoded, as `file://` URLs do.
    @Test func downloadFromAFileURLWithAFilterTakesEveryMatch() async throws {
        let (show, podcast) = try servedShow()
        let file = podcast.home.path("show feed.xml")
        try show.feedXML.write(to: URL(filePath: file))
        let url = URL(filePath: file).absoluteString
        #expect(url.hasPrefix("file:///") && url.contains("%20"), "\(url)")
        #expect(try await download([url, "--until", "2026-11-02"], from: show, in: podcast) == [1, 2])
        #expect(show.feedRequests.isEmpty)
    }

    @Test func downloadFromAnITunesIDListsTheLookedUpFeed() async throws {
        let (show, podcast) = try servedShow(itunes: true)
        let server = show.server
        let answer = #"{"resultCount":1,"results":[{"kind":"podcast","collectionId":77,"collectionName":"Selection Show","artistName":"Host","feedUrl":"\#(show.feedURL)"}]}"#
        server.setRoute("/lookup", .fixed(body: Data(answer.utf8)))
        #expect(try await download(["itunes:77", "--match", "episode 4"], from: show, in: podcast) == [4])
        #expect(server.requests.contains { $0.target == "/lookup?id=77&entity=podcast" })
    }
}
