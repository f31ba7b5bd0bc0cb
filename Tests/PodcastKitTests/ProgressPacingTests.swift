import PodcastKit
import Testing

/// When a progress line is drawn, on a set clock: nothing for the first second, then at most four
/// times a second.
@Suite(.timeLimit(.minutes(5))) struct ProgressPacingTests {
    private let start = ContinuousClock.now

    /// What `pacing` answers when asked at each of `milliseconds` after the start, in turn.
    private func answers(_ pacing: ProgressPacing, at milliseconds: [Int]) -> [Bool] {
        var pacing = pacing
        return milliseconds.map { pacing.isDue(at: start + .milliseconds($0)) }
    }

    @Test func nothingIsShownDuringTheFirstSecond() {
        #expect(answers(ProgressPacing(start: start), at: [0, 500, 999, 1000]) == [false, false, false, true])
    }

    @Test func afterShowingItWaitsAQuarterSecond() {
        #expect(answers(ProgressPacing(start: start), at: [1500, 1600, 1749, 1750, 1751]) == [true, false, false, true, false])
    }

    @Test func aQuestionThatIsNotDueDoesNotCountAsShown() {
        let pacing = ProgressPacing(start: start, delay: .zero, interval: .seconds(1))
        #expect(answers(pacing, at: [0, 900, 1000, 1999, 2000]) == [true, false, true, false, true])
    }
}
