@testable import PodcastKit
import Testing

/// `FreeSpaceCheck`: whether an episode of known size may start on a file system with so much
/// room, leaving `min-free-space`.
@Suite(.timeLimit(.minutes(1))) struct FreeSpaceCheckTests {
    private let mebibyte: Int64 = 1 << 20

    private func problem(size: Int64?, have: Int64 = 0, free: Int64?, reserved: Int64 = 0, floor: Int64) -> String? {
        FreeSpaceCheck.problem(size: size, have: have, in: FreeSpaceCheck.Room(free: free, reserved: reserved, floor: floor))
    }

    @Test func anEpisodeThatFitsAboveTheFloorStarts() {
        #expect(problem(size: 10 * mebibyte, have: 0, free: 100 * mebibyte, floor: 50 * mebibyte) == nil)
        // Exactly the floor left is enough.
        #expect(problem(size: 50 * mebibyte, have: 0, free: 100 * mebibyte, floor: 50 * mebibyte) == nil)
    }

    @Test func anEpisodeThatWouldEatIntoTheFloorWaitsWithTheNumbers() throws {
        let why = try #require(problem(size: 60 * mebibyte, have: 0, free: 100 * mebibyte, floor: 50 * mebibyte))
        #expect(why == "not enough room: it needs 60.0 MiB and 100.0 MiB is free, which would leave 40.0 MiB (min-free-space is 50M); "
            + "make room or lower min-free-space, then podcast resume")
        let over = try #require(problem(size: 3 * mebibyte, have: 0, free: 2 * mebibyte, floor: 1024))
        #expect(over.contains("which would leave none (min-free-space is 1k)"), "\(over)")
    }

    @Test func whatThePartialFileHoldsIsNotNeededAgain() {
        #expect(problem(size: 60 * mebibyte, have: 20 * mebibyte, free: 100 * mebibyte, floor: 50 * mebibyte) == nil)
        #expect(problem(size: 60 * mebibyte, have: 9 * mebibyte, free: 100 * mebibyte, floor: 50 * mebibyte) != nil)
    }

    @Test func anUnknownSizeOrRoomNeverHoldsAnEpisodeBack() {
        #expect(problem(size: nil, have: 0, free: 0, floor: 50 * mebibyte) == nil)
        // Feeds write 0 or 1 when they do not know.
        #expect(problem(size: 1, have: 0, free: 0, floor: 50 * mebibyte) == nil)
        #expect(problem(size: 60 * mebibyte, have: 0, free: nil, floor: 50 * mebibyte) == nil)
        #expect(problem(size: .max, have: 0, free: .max, floor: .max) != nil, "no overflow")
    }

    @Test func whatTheDownloadsRunningStillNeedIsNotFreeForAnother() throws {
        // Two 3 GiB episodes, 4 GiB free, 1 GiB floor: the first fits, the second does not.
        let gibibyte = 1024 * mebibyte
        #expect(problem(size: 3 * gibibyte, free: 4 * gibibyte, floor: gibibyte) == nil)
        let why = try #require(problem(size: 3 * gibibyte, free: 4 * gibibyte, reserved: 3 * gibibyte, floor: gibibyte))
        #expect(why == "not enough room: it needs 3.0 GiB and 4.0 GiB is free (3.0 GiB of it for the downloads already running), "
            + "which would leave none (min-free-space is 1G); make room or lower min-free-space, then podcast resume")
        #expect(problem(size: 2 * gibibyte, free: 4 * gibibyte, reserved: gibibyte, floor: gibibyte) == nil, "exactly the floor left")
        #expect(problem(size: 10, free: .max, reserved: .max, floor: .max) != nil, "no overflow")
    }

    @Test func anAnswerOfNoKnownSizeGrowsWhileAnotherStepFitsAboveTheFloor() throws {
        let step = 4 * mebibyte
        let room = { (free: Int64?, reserved: Int64) in FreeSpaceCheck.Room(free: free, reserved: reserved, floor: 10 * self.mebibyte) }
        #expect(FreeSpaceCheck.problem(growingFrom: 0, by: step, in: room(14 * mebibyte, 0)) == nil, "exactly a step above the floor")
        #expect(FreeSpaceCheck.problem(growingFrom: 0, by: step, in: room(nil, 0)) == nil, "an unknown room holds nothing back")
        let why = try #require(FreeSpaceCheck.problem(growingFrom: 20 * mebibyte, by: step, in: room(14 * mebibyte, mebibyte)))
        #expect(why == "not enough room: the server gave no size, it has 20.0 MiB and 14.0 MiB is free (1.0 MiB of it for the downloads "
            + "already running), which would leave less than min-free-space (10M) after the next 4.0 MiB; make room or lower "
            + "min-free-space, then podcast resume")
        #expect(FreeSpaceCheck.problem(growingFrom: 0, by: step, in: FreeSpaceCheck.Room(free: .max, reserved: .max, floor: .max)) != nil, "no overflow")
    }

    @Test func onlyAnAnswerLargerThanTheRoomLeftOrAMebibyteWaitsForTheGoAhead() {
        let room = { (free: Int64?, reserved: Int64) in FreeSpaceCheck.Room(free: free, reserved: reserved, floor: 10 * self.mebibyte) }
        #expect(FreeSpaceCheck.unaskedBytes(in: room(nil, 0)) == nil, "an unknown room holds nothing back")
        #expect(FreeSpaceCheck.unaskedBytes(in: room(100 * mebibyte, 0)) == mebibyte)
        #expect(FreeSpaceCheck.unaskedBytes(in: room(10 * mebibyte + 5_000, 0)) == 5_000)
        #expect(FreeSpaceCheck.unaskedBytes(in: room(100 * mebibyte, 95 * mebibyte)) == 0)
        #expect(FreeSpaceCheck.unaskedBytes(in: FreeSpaceCheck.Room(free: 5, reserved: .max, floor: .max)) == 0, "no overflow")
        // What goes on unasked always fits.
        let spare = 10 * mebibyte + 5_000
        #expect(problem(size: 5_000, free: spare, floor: 10 * mebibyte) == nil)
        #expect(problem(size: 5_001, free: spare, floor: 10 * mebibyte) != nil)
    }
}
