/// Room before bytes: whether an episode of known size may start on a file system with so much
/// free, leaving `min-free-space` free after it and after what the batch's other episodes in
/// flight there still need. An episode that cannot fit waits, paused, with a line saying why,
/// instead of filling the disk for every other writer (and failing after gigabytes). A pure
/// decision, asked before an episode starts (its size from an earlier attempt, else the feed's)
/// and again when the server answers with its own size; the batch asks the file system
/// (`FileSystemCalls.freeSpace`).
enum FreeSpaceCheck {
    /// The room on one file system as the batch sees it when it asks.
    struct Room: Equatable {
        /// What the file system has free for this user; nil when it cannot be told.
        var free: Int64?
        /// What the batch's other episodes in flight to the same file system still need: two
        /// 3 GB episodes must not both start on 4 GB.
        var reserved: Int64 = 0
        /// The room to leave (`min-free-space`).
        var floor: Int64
    }

    /// The most bytes an answer may bring before its transfer waits, its body unwritten, for the
    /// batch to check it against the room (`TransferRequest.goAheadAbove`): small answers that fit
    /// go on without a trip to the batch's thread; larger ones are checked with what is in flight
    /// then, so the room the batch knew when the transfer started is never spent twice by more
    /// than this much per running transfer.
    static let unaskedAnswer: Int64 = 1024 * 1024

    /// How many bytes an answer may bring without waiting for the batch's go-ahead, in `room`:
    /// nil (any) when the room is unknown, which never holds an episode back.
    static func unaskedBytes(in room: Room) -> Int64? {
        guard let free = room.free else { return nil }
        let (kept, overflow) = room.reserved.addingReportingOverflow(room.floor)
        return overflow || kept > free ? 0 : min(unaskedAnswer, free - kept)
    }

    /// Why an episode whose answer gave no size cannot go on growing in `room`, or nil while it
    /// can: `have` is what its partial file holds, and it is told of again after another `step`,
    /// so it stops while that much is still left above the floor (and what the other downloads
    /// running there still need).
    static func problem(growingFrom have: Int64, by step: Int64, in room: Room) -> String? {
        guard let free = room.free else { return nil }
        let (kept, overflow) = room.reserved.addingReportingOverflow(room.floor)
        let (wanted, overflowAgain) = kept.addingReportingOverflow(step)
        guard overflow || overflowAgain || wanted > free else { return nil }
        return "not enough room: the server gave no size, it has \(ByteCount.text(have)) and \(ByteCount.text(free)) is free"
            + running(room) + ", which would leave less than min-free-space (\(ByteCount.written(room.floor))) after the next "
            + "\(ByteCount.text(step)); make room or lower min-free-space, then podcast resume"
    }

    /// What the downloads already running take of `room`, for a reason line; empty for none.
    private static func running(_ room: Room) -> String {
        room.reserved > 0 ? " (\(ByteCount.text(room.reserved)) of it for the downloads already running)" : ""
    }

    /// Why the episode cannot start or go on in `room`, or nil when it fits or its size or the
    /// room is unknown: `size` is its whole file (the server's length, else the feed's), `have`
    /// what its partial file already holds.
    static func problem(size: Int64?, have: Int64, in room: Room) -> String? {
        guard let size, size > 1, let free = room.free else { return nil }
        let needed = max(0, size - have)
        let (taken, overflow) = needed.addingReportingOverflow(room.reserved)
        let (wanted, overflowAgain) = taken.addingReportingOverflow(room.floor)
        guard overflow || overflowAgain || wanted > free else { return nil }
        let left = overflow ? -1 : free - taken
        return "not enough room: it needs \(ByteCount.text(needed)) and \(ByteCount.text(free)) is free\(running(room)), which would leave "
            + (left < 0 ? "none" : ByteCount.text(left)) + " (min-free-space is \(ByteCount.written(room.floor))); "
            + "make room or lower min-free-space, then podcast resume"
    }
}
