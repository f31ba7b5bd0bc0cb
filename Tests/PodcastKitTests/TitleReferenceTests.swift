import PodcastKit
import Testing

/// Which subscription a typed title names, and which one a title that names none likely meant.
@Suite(.timeLimit(.minutes(5))) struct TitleReferenceTests {
    private let titles = ["Tiny Tech", "The Loopback Hour", "tiny tech", "Ünïcode Weekly", "Tones"]

    @Test func anExactTitleWinsOverOneInOtherLetterCase() {
        #expect(TitleReference("tiny tech", titles: titles) == .exact([2]))
        #expect(TitleReference("Tiny Tech", titles: titles) == .exact([0]))
    }

    @Test func letterCaseIsIgnoredWhenNoTitleIsWrittenSo() {
        #expect(TitleReference("the loopback hour", titles: titles) == .ignoringCase([1]))
        #expect(TitleReference("ÜNÏCODE WEEKLY", titles: titles) == .ignoringCase([3]))
    }

    @Test func everyTitleThatDiffersOnlyInLetterCaseIsFound() {
        #expect(TitleReference("TINY TECH", titles: titles) == .ignoringCase([0, 2]))
    }

    @Test func aTypoSuggestsTheTitleItWasMeantFor() {
        #expect(TitleReference("the lopback hour", titles: titles) == .none(suggestion: "The Loopback Hour"))
        #expect(TitleReference("Unicode Weekly", titles: titles) == .none(suggestion: "Ünïcode Weekly"))
    }

    @Test func aPartOfOneTitleSuggestsIt() {
        #expect(TitleReference("loopback", titles: titles) == .none(suggestion: "The Loopback Hour"))
    }

    @Test func aWordNearNoTitleSuggestsNone() {
        #expect(TitleReference("Jazz", titles: titles) == .none(suggestion: nil))
        // A part of two titles names neither.
        #expect(TitleReference("t", titles: titles) == .none(suggestion: nil))
        #expect(TitleReference("anything", titles: []) == .none(suggestion: nil))
    }
}
