/// Room before bytes: whether an episode of known size may start on a file system with so much
/// free, leaving `min-free-space` free after it. An episode that cannot fit waits, paused, with a
/// line saying why, instead of filling the disk for every other writer (and failing after
/// gigabytes). A pure decision: the batch asks the file system (`FileSystemCalls.freeSpace`).
enum FreeSpaceCheck {
    /// Why the episode cannot start, or nil when it fits or its size or the room is unknown:
    /// `size` is its whole file (the server's length from an earlier attempt, else the feed's),
    /// `have` what its partial file already holds, `free` what the file system has for this
    /// user, `floor` the room to leave.
    static func problem(size: Int64?, have: Int64, free: Int64?, floor: Int64) -> String? {
        guard let size, size > 1, let free else { return nil }
        let needed = max(0, size - have)
        let (wanted, overflow) = needed.addingReportingOverflow(floor)
        guard overflow || wanted > free else { return nil }
        let left = free - needed
        return "not enough room: it needs \(ByteCount.text(needed)) and \(ByteCount.text(free)) is free, which would leave "
            + (left < 0 ? "none" : ByteCount.text(left)) + " (min-free-space is \(ByteCount.written(floor))); "
            + "make room or lower min-free-space, then podcast resume"
    }
}
