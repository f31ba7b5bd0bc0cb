@testable import PodcastKit
import Testing

/// `FreeSpaceCheck`: whether an episode of known size may start on a file system with so much
/// room, leaving `min-free-space`.
@Suite(.timeLimit(.minutes(1))) struct FreeSpaceCheckTests {
    private let mebibyte: Int64 = 1 << 20

    @Test func anEpisodeThatFitsAboveTheFloorStarts() {
        #expect(FreeSpaceCheck.problem(size: 10 * mebibyte, have: 0, free: 100 * mebibyte, floor: 50 * mebibyte) == nil)
        // Exactly the floor left is enough.
        #expect(FreeSpaceCheck.problem(size: 50 * mebibyte, have: 0, free: 100 * mebibyte, floor: 50 * mebibyte) == nil)
    }

    @Test func anEpisodeThatWouldEatIntoTheFloorWaitsWithTheNumbers() throws {
        let why = try #require(FreeSpaceCheck.problem(size: 60 * mebibyte, have: 0, free: 100 * mebibyte, floor: 50 * mebibyte))
        #expect(why == "not enough room: it needs 60.0 MiB and 100.0 MiB is free, which would leave 40.0 MiB (min-free-space is 50M); "
            + "make room or lower min-free-space, then podcast resume")
        let over = try #require(FreeSpaceCheck.problem(size: 3 * mebibyte, have: 0, free: 2 * mebibyte, floor: 1024))
        #expect(over.contains("which would leave none (min-free-space is 1k)"), "\(over)")
    }

    @Test func whatThePartialFileHoldsIsNotNeededAgain() {
        #expect(FreeSpaceCheck.problem(size: 60 * mebibyte, have: 20 * mebibyte, free: 100 * mebibyte, floor: 50 * mebibyte) == nil)
        #expect(FreeSpaceCheck.problem(size: 60 * mebibyte, have: 9 * mebibyte, free: 100 * mebibyte, floor: 50 * mebibyte) != nil)
    }

    @Test func anUnknownSizeOrRoomNeverHoldsAnEpisodeBack() {
        #expect(FreeSpaceCheck.problem(size: nil, have: 0, free: 0, floor: 50 * mebibyte) == nil)
        // Feeds write 0 or 1 when they do not know.
        #expect(FreeSpaceCheck.problem(size: 1, have: 0, free: 0, floor: 50 * mebibyte) == nil)
        #expect(FreeSpaceCheck.problem(size: 60 * mebibyte, have: 0, free: nil, floor: 50 * mebibyte) == nil)
        #expect(FreeSpaceCheck.problem(size: .max, have: 0, free: .max, floor: .max) != nil, "no overflow")
    }
}
