import Foundation
import PodcastKit
import Testing

@Suite(.timeLimit(.minutes(5))) struct SelectionTests {
    @Test(arguments: [
        (["3"], [3]),
        (["1-5"], [1, 2, 3, 4, 5]),
        (["2,4,9"], [2, 4, 9]),
        (["all"], Array(1...10)),
        (["ALL"], Array(1...10)),
        (["9", "1-2,2", "4"], [1, 2, 4, 9]),
        (["7-7"], [7]),
        (["8-"], [8, 9, 10]),
        (["1-", "3"], Array(1...10)),
    ])
    func wordsSelectNumbers(words: [String], numbers: [Int]) throws {
        #expect(try Selection(words).numbers(inListingOf: 10) == numbers)
    }

    @Test(arguments: ["0", "-3", "5-2", "x", "0-", "-", "3.5", "", "1,,2", "1-2-3", "news"])
    func nonsenseIsBadUsageNamingThePart(word: String) {
        #expect(throws: UsageError.self) { try Selection([word]) }
    }

    @Test func numberBeyondTheListingIsNamed() {
        #expect(throws: UsageError("number 12 is not in the last listing (1–10); run podcast episodes again to see it")) {
            try Selection(["3", "12"]).numbers(inListingOf: 10)
        }
        #expect(throws: UsageError("number 11 is not in the last listing (1–10); run podcast episodes again to see it")) {
            try Selection(["8-11"]).numbers(inListingOf: 10)
        }
    }

    @Test func selectedNumbersNameTheirItemsInTheOrderAsked() {
        func listing(_ numbers: [Int]) -> Listing {
            Listing(source: .feed(url: "http://example.com/feed", title: "Show"),
                    items: numbers.map { ListingItem(number: $0, identity: "ep-\($0)", title: "Episode \($0)") })
        }
        // Numbered 1...n in order, as stored; and a listing that is not (found by number, not position).
        for numbered in [listing([1, 2, 3, 4]), listing([4, 2, 3, 1]), listing([1, 2, 7, 8])] {
            let items = DownloadItem.items([3, 1, 8], of: numbered)
            let expected = [3, 1, 8].filter { number in numbered.items.contains { $0.number == number } }
            #expect(items.map(\.number) == expected)
            #expect(items.map(\.entry.identity) == expected.map { "ep-\($0)" })
            #expect(items.allSatisfy { $0.podcastTitle == "Show" })
        }
    }

    @Test func newSelectsTheNewOnesAndMixesWithNumbers() throws {
        let new: Set<Int> = [2, 5, 7]
        #expect(try Selection(["new"]).numbers(inListingOf: 10, isNew: new.contains) == [2, 5, 7])
        #expect(try Selection(["NEW,1"]).numbers(inListingOf: 10, isNew: new.contains) == [1, 2, 5, 7])
        #expect(try Selection(["new"]).numbers(inListingOf: 10, isNew: { _ in false }).isEmpty)
    }

    @Test func anOpenRangeBeyondTheListingIsNamed() {
        #expect(throws: UsageError("number 11 is not in the last listing (1–10); run podcast episodes again to see it")) {
            try Selection(["11-"]).numbers(inListingOf: 10)
        }
    }

    @Test func filtersNarrowByDateTitleAndNewest() throws {
        let items = (1...6).map { day in
            ListingItem(number: 7 - day, identity: "e\(day)", title: day % 2 == 0 ? "Interview \(day)" : "News \(day)",
                        published: SelectionFilter.date("2026-11-0\(day)", start: true).map { $0.addingTimeInterval(3600) })
        }.reversed().map { $0 }
        let dated = SelectionFilter(since: SelectionFilter.date("2026-11-02", start: true), until: SelectionFilter.date("2026-11-04", start: false))
        #expect(try dated.apply(items).map(\.identity) == ["e4", "e3", "e2"])
        #expect(try SelectionFilter(match: "^interview").apply(items).map(\.identity) == ["e6", "e4", "e2"])
        #expect(try SelectionFilter(match: "interview", latest: 2).apply(items).map(\.identity) == ["e6", "e4"])
        #expect(try SelectionFilter(latest: 1).apply(items + [ListingItem(number: 9, identity: "undated", title: "x")]).map(\.identity) == ["e6"])
        #expect(throws: UsageError.self) { try SelectionFilter(match: "(").apply(items) }
    }

    @Test func datesAreUTCDaysOrInstants() {
        #expect(SelectionFilter.date("2026-11-20", start: true) == Date(timeIntervalSince1970: 1_795_132_800))
        #expect(SelectionFilter.date("2026-11-20", start: false) == Date(timeIntervalSince1970: 1_795_132_800 + 86_399))
        #expect(SelectionFilter.date("2026-11-20T08:30", start: true) == Date(timeIntervalSince1970: 1_795_132_800 + 8 * 3600 + 1800))
        #expect(SelectionFilter.date("2026-11-20 08:30:15", start: false) == Date(timeIntervalSince1970: 1_795_132_800 + 8 * 3600 + 1815))
        #expect(SelectionFilter.date("2028-02-29", start: true) != nil)
        for nonsense in ["2026-13-01", "2026-11-31", "2026-02-29", "2100-02-29", "20-11-2026", "2026-11-20T25:00", "yesterday", "2026-11-20T08", ""] {
            #expect(SelectionFilter.date(nonsense, start: true) == nil, "\(nonsense)")
        }
    }

    @Test func allOfAnEmptyListingIsBadUsage() {
        #expect(throws: UsageError("the last listing is empty; run podcast episodes <feed> first")) {
            try Selection(["all"]).numbers(inListingOf: 0)
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct EpisodeFileNameTests {
    private let november20 = Date(timeIntervalSince1970: 1_795_161_600)

    private func standardName(title: String, published: Date?, suffix: String = "") -> String {
        NameTemplate.standard.render(
            NameValues(podcast: "Show", title: title, published: published, fileExtension: "mp3"), suffix: suffix).fileName
    }

    @Test func datedTitleWithExtensionFromTheMediaType() {
        let values = NameValues(
            podcast: "Show", title: "Episode 1: Hello", published: november20,
            fileExtension: EpisodeFileName.fileExtension(mediaType: "audio/mpeg", url: "https://x/a.bin"))
        #expect(NameTemplate.standard.render(values).relativePath == "Show/2026-11-20 Episode 1: Hello.mp3")
    }

    @Test func extensionFallsBackToTheURLThenMP3() {
        #expect(EpisodeFileName.fileExtension(mediaType: nil, url: "https://x/show/ep.M4A?token=1") == "m4a")
        #expect(EpisodeFileName.fileExtension(mediaType: "application/octet-stream", url: "https://x/download") == "mp3")
        #expect(EpisodeFileName.fileExtension(mediaType: "audio/x-m4a; codecs=mp4a", url: "https://x/ep") == "m4a")
    }

    @Test(arguments: [
        ("../../etc/passwd", "etc-passwd"),
        ("/absolute/path", "absolute-path"),
        ("..", "Untitled podcast"),
        (".hidden", "hidden"),
        ("tab\there\u{0}nul", "tab here nul"),
        ("  spaced  out  ", "spaced out"),
        ("音楽 🎙️ Podcast", "音楽 🎙️ Podcast"),
        ("back\\slash", "back-slash"),
        // Printable ASCII near the plain-name shortcut's edges: each still gets the full rules.
        ("-dash first", "dash first"),
        ("ends with a dot.", "ends with a dot"),
        ("double  space", "double space"),
        ("a/b", "a-b"),
        ("four / with slash", "four - with slash"),
        ("...", "Untitled podcast"),
        ("Plain Title: Part 2 (Live)", "Plain Title: Part 2 (Live)"),
    ])
    func namesStayInsideTheEpisodesDirectory(title: String, expected: String) {
        let folder = NameTemplate.standard.render(NameValues(podcast: title, title: "x", fileExtension: "mp3")).folders
        #expect(folder == [expected])
    }

    @Test func longPlainTitlesAreCutLeavingRoomForTheLongestCompanionExtension() {
        let name = standardName(title: String(repeating: "a", count: 300), published: november20, suffix: " (3)")
        #expect(name.utf8.count == 255 - ".transcript.html".utf8.count + ".mp3".utf8.count)
        #expect(name.hasPrefix("2026-11-20 aaa"))
        #expect(name.hasSuffix("a (3).mp3"))
    }

    @Test func longTitlesAreCutToTheByteLimitWithSuffixAndExtension() {
        let name = standardName(title: String(repeating: "é", count: 300), published: nil, suffix: " (2)")
        #expect(name.utf8.count <= 255)
        #expect(name.hasSuffix("é (2).mp3"))
    }
}
