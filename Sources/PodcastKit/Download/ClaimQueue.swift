/// A batch's episodes on their way to becoming active, by index into the batch's items: claimed
/// in the progress buffer a group at a time, then waiting, oldest first, for a place in the
/// engine. Indexes rather than records: thousands of waiting episodes cost an index each.
struct ClaimQueue {
    /// Claims at most so many episodes per transaction: one transaction per episode costs more
    /// than the transfer of a small file, one for thousands holds the write lock too long.
    static let mostPerGroup = 256
    /// The first transaction claims this many, and each next one twice as many up to the most,
    /// so the first transfers start at once instead of after thousands of claims.
    static let firstGroup = 16

    /// How many items the batch has.
    private(set) var count: Int
    /// Items from this index on are not claimed yet.
    private var nextUnclaimed = 0
    /// How many items the next claim takes.
    private(set) var groupSize = firstGroup
    /// Claimed episodes not yet started, oldest first, from `firstWaiting` on.
    private var waiting: [Int] = []
    private var firstWaiting = 0
    /// What the progress buffer held for a waiting episode before it was claimed, if anything.
    private var previousRecords: [Int: DownloadRecord] = [:]

    init(count: Int) {
        self.count = count
    }

    /// `more` items were added to the batch while it runs: they wait to be claimed after the others.
    mutating func extend(by more: Int) {
        count += more
    }

    /// True while some items are not claimed yet.
    var hasUnclaimed: Bool { nextUnclaimed < count }

    /// The next item to claim, taken off the unclaimed ones.
    mutating func takeUnclaimed() -> Int? {
        guard hasUnclaimed else { return nil }
        defer { nextUnclaimed += 1 }
        return nextUnclaimed
    }

    /// Every item not claimed yet, taken off (a claim the store refused: none of them can be).
    mutating func takeAllUnclaimed() -> Range<Int> {
        defer { nextUnclaimed = count }
        return nextUnclaimed..<count
    }

    /// A group was claimed: the next one is twice as large, up to the most.
    mutating func groupClaimed() {
        groupSize = min(groupSize * 2, Self.mostPerGroup)
    }

    /// Item `index` is claimed and waits to start; `previous` is what the store held for it.
    mutating func wait(_ index: Int, previous: DownloadRecord?) {
        waiting.append(index)
        if let previous { previousRecords[index] = previous }
    }

    /// The next claimed episode waiting to start, taken off the queue (an index moves, not the
    /// queue: thousands of episodes must not cost a copy each).
    mutating func takeWaiting() -> Int? {
        guard firstWaiting < waiting.count else { return nil }
        let index = waiting[firstWaiting]
        firstWaiting += 1
        if firstWaiting == waiting.count {
            waiting.removeAll()
            firstWaiting = 0
        }
        return index
    }

    /// The first waiting episode whose index `matches`, taken off the queue; nil when none does.
    mutating func takeWaiting(where matches: (Int) -> Bool) -> Int? {
        guard let position = waiting[firstWaiting...].firstIndex(where: matches) else { return nil }
        return waiting.remove(at: position)
    }

    /// Every claimed episode still waiting to start, taken off the queue.
    mutating func takeAllWaiting() -> [Int] {
        let indexes = Array(waiting[firstWaiting...])
        waiting.removeAll()
        firstWaiting = 0
        return indexes
    }

    /// What the store held for `index` before it was claimed, handed over once.
    mutating func takePrevious(of index: Int) -> DownloadRecord? {
        previousRecords.removeValue(forKey: index)
    }
}
