@testable import PodcastKit
import Testing

/// `NameHolds`: episodes of one batch that want the same name get it in the order they are
/// admitted (the batch's order), whatever the order they finish in.
@Suite(.timeLimit(.minutes(5))) struct NameHoldsTests {
    /// `/E/Show/Same.mp3`, `/E/Show/Same (2).mp3`, …
    private static func candidate(_ attempt: Int) -> String {
        "/E/Show/Same" + (attempt == 1 ? "" : " (\(attempt))") + ".mp3"
    }

    @Test func episodesWantingOneNameHoldItInTheOrderTheyAreAdmitted() {
        var holds = NameHolds()
        #expect(holds.hold(for: 7, candidate: Self.candidate) { _ in true } == "/E/Show/Same.mp3")
        #expect(holds.hold(for: 3, candidate: Self.candidate) { _ in true } == "/E/Show/Same (2).mp3")
        // Episode 3 finishing first must still leave the plain name to 7, and 7 the second to 3.
        #expect(holds.isHeld("/E/Show/Same.mp3", byOtherThan: 3))
        #expect(!holds.isHeld("/E/Show/Same (2).mp3", byOtherThan: 3))
        #expect(holds.isHeld("/E/Show/Same (2).m4a", byOtherThan: 7), "a stem is held whatever the extension")
        #expect(!holds.isHeld("/E/Show/Same (3).mp3", byOtherThan: 3))
    }

    @Test func aNameTakenOnDiskIsPassedOverAndAnEndedEpisodeLetsItsNameGo() {
        var holds = NameHolds()
        let taken: Set<String> = ["/E/Show/Same.mp3"]
        #expect(holds.hold(for: 1, candidate: Self.candidate) { !taken.contains($0) } == "/E/Show/Same (2).mp3")
        #expect(holds.hold(for: 2, candidate: Self.candidate) { !taken.contains($0) } == "/E/Show/Same (3).mp3")
        holds.release(1)
        #expect(!holds.isHeld("/E/Show/Same (2).mp3", byOtherThan: 2))
        #expect(holds.isHeld("/E/Show/Same (3).mp3", byOtherThan: 1))
        // Holding again gives up the earlier hold.
        #expect(holds.hold(for: 2, candidate: Self.candidate) { !taken.contains($0) } == "/E/Show/Same (2).mp3")
        #expect(!holds.isHeld("/E/Show/Same (3).mp3", byOtherThan: 1))
    }
}
