import PodcastHTTP
import PodcastKit
import PodcastText
import Testing

@Suite(.timeLimit(.minutes(5))) struct TextTableTests {
    private let table = TextTable(
        columns: [
            TextTable.Column("#", alignment: .right),
            TextTable.Column("Name", minWidth: 6, shrinkStage: 1),
            TextTable.Column("Feed", minWidth: 10, shrinkStage: 2),
        ],
        rows: [
            ["1", "A fairly long podcast name", "https://example.com/feeds/one.xml"],
            ["10", "Short", "https://example.com/2.xml"],
        ])

    @Test func anEmptyColumnThatMayBeOmittedTakesNoWidth() {
        let table = TextTable(
            columns: [
                TextTable.Column("#", alignment: .right),
                TextTable.Column("Speed", alignment: .right, omittedWhenEmpty: true),
                TextTable.Column("Title", minWidth: 5, shrinkStage: 1),
            ],
            rows: [["1", "", "A title of some length"], ["2", "", "Short"]])
        let output = table.render(width: 25)
        #expect(output.lines == ["#  Title", "1  A title of some length", "2  Short"])
        #expect(output.droppedColumns.isEmpty)
        #expect(output.columnStarts == [0, nil, 3])

        var filled = table
        filled.rows[1][1] = "1.0 KiB/s"
        let shown = filled.render(width: nil)
        #expect(shown.lines[0] == "#      Speed  Title")
        #expect(shown.columnStarts == [0, 3, 14])
    }

    @Test func unlimitedWidthKeepsEveryCellWhole() {
        let lines = table.render(width: nil).lines
        #expect(lines == [
            " #  Name                        Feed",
            " 1  A fairly long podcast name  https://example.com/feeds/one.xml",
            "10  Short                       https://example.com/2.xml",
        ])
    }

    @Test func bidiControlsAreLeftOutOfCells() {
        let table = TextTable(
            columns: [TextTable.Column("#", alignment: .right), TextTable.Column("Title"), TextTable.Column("State")],
            rows: [["1", "Invoice \u{202E}fdp.exe\u{202C} \u{2066}x\u{2069}", "new"]])
        #expect(table.render(width: nil).lines == [
            "#  Title              State",
            "1  Invoice fdp.exe x  new",
        ])
    }

    @Test func narrowWidthShrinksEarlierStagesFirst() {
        let lines = table.render(width: 50).lines
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 50 })
        // The name column gave up width before the feed column lost anything.
        #expect(lines[1].hasSuffix("https://example.com/feeds/one.xml"))
        #expect(lines[1].contains("…"))
    }

    @Test func veryNarrowWidthStillFitsEveryLine() {
        let lines = table.render(width: 20).lines
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 20 })
    }

    @Test func droppableColumnIsLeftOutWholeRatherThanCut() {
        let table = TextTable(
            columns: [
                TextTable.Column("Name", minWidth: 10, shrinkStage: 1),
                TextTable.Column("Feed", droppable: true),
            ],
            rows: [["A rather long podcast name", "https://example.com/feeds/one.xml"]])
        let wide = table.render(width: 80)
        #expect(wide.droppedColumns.isEmpty)
        #expect(wide.lines[1] == "A rather long podcast name  https://example.com/feeds/one.xml")

        let shrunk = table.render(width: 50)
        #expect(shrunk.droppedColumns.isEmpty)
        #expect(shrunk.lines[1].hasSuffix("  https://example.com/feeds/one.xml"))

        let narrow = table.render(width: 30)
        #expect(narrow.droppedColumns == ["Feed"])
        #expect(narrow.lines == ["Name", "A rather long podcast name"])
    }

    @Test func wideCharactersCountTwoColumns() {
        #expect(DisplayWidth.of("音楽") == 4)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("🎙️") == 2)
        #expect(DisplayWidth.of("plain") == 5)
    }

    @Test func truncationNeverSplitsAWideCharacterOverTheLimit() {
        let cut = DisplayWidth.truncate("音楽の時間です", to: 6)
        #expect(DisplayWidth.of(cut) <= 6)
        #expect(cut.hasSuffix("…"))
    }

    @Test func cellsWithControlCharactersAreFoldedOntoOneLine() {
        let table = TextTable(columns: [TextTable.Column("Name")], rows: [["line one\nline\ttwo\u{7}"]])
        #expect(table.render(width: nil).lines == ["Name", "line one line two"])
    }
}

@Suite(.timeLimit(.minutes(5))) struct QueryStringTests {
    @Test func escapesEverythingButUnreservedBytes() {
        #expect(QueryString.encode([("term", "rock & roll/ü"), ("limit", "5")]) == "term=rock%20%26%20roll%2F%C3%BC&limit=5")
        #expect(QueryString.escape("A-z_0.9~") == "A-z_0.9~")
    }
}

@Suite(.timeLimit(.minutes(5))) struct DisplayWidthShorteningTests {
    @Test func middleShorteningKeepsTheStartAndMoreOfTheEnd() {
        #expect(DisplayWidth.truncateMiddle("Episode 12: The End", to: 10) == "Epi…he End")
        #expect(DisplayWidth.truncateMiddle("short", to: 10) == "short")
        #expect(DisplayWidth.of(DisplayWidth.truncateMiddle("音楽の時間 第十二回 最終回", to: 11)) <= 11)
    }
}
