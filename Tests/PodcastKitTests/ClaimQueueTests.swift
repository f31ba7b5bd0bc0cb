@testable import PodcastKit
import Testing

/// `ClaimQueue`: which of a batch's items are claimed next and in what group sizes (16, doubling,
/// never more than 256), which claimed episode starts next (oldest first, or the first a rule
/// picks), and that an earlier run's record is handed over once.
@Suite(.timeLimit(.minutes(5))) struct ClaimQueueTests {
    private func record(_ identity: String) -> DownloadRecord {
        DownloadRecord(
            feed: "http://h/feed.xml", identity: identity, podcastTitle: "Show", title: identity, url: "http://h/\(identity).mp3",
            mediaType: nil, published: nil)
    }

    @Test func groupsStartSmallAndDoubleUpToTheMost() {
        var claims = ClaimQueue(count: 10_000)
        var sizes: [Int] = []
        for _ in 0..<7 {
            sizes.append(claims.groupSize)
            claims.groupClaimed()
        }
        #expect(sizes == [16, 32, 64, 128, 256, 256, 256])
    }

    @Test func itemsAreClaimedInTheBatchsOrderOnce() {
        var claims = ClaimQueue(count: 3)
        #expect(claims.hasUnclaimed)
        #expect([claims.takeUnclaimed(), claims.takeUnclaimed(), claims.takeUnclaimed()] == [0, 1, 2])
        #expect(claims.takeUnclaimed() == nil)
        #expect(!claims.hasUnclaimed)
    }

    @Test func itemsAddedWhileTheBatchRunsAreClaimedAfterTheOthers() {
        var claims = ClaimQueue(count: 1)
        #expect(claims.takeUnclaimed() == 0)
        #expect(!claims.hasUnclaimed)
        claims.extend(by: 2)
        #expect(claims.count == 3)
        #expect(claims.takeUnclaimed() == 1)
        #expect(claims.takeUnclaimed() == 2)
        #expect(claims.takeUnclaimed() == nil)
    }

    @Test func aRefusedClaimTakesEveryItemNotClaimedYet() {
        var claims = ClaimQueue(count: 5)
        _ = claims.takeUnclaimed()
        _ = claims.takeUnclaimed()
        #expect(claims.takeAllUnclaimed() == 2..<5)
        #expect(!claims.hasUnclaimed)
        #expect(claims.takeAllUnclaimed() == 5..<5, "nothing left the second time")
    }

    @Test func claimedEpisodesStartOldestFirst() {
        var claims = ClaimQueue(count: 4)
        for index in [2, 0, 3] { claims.wait(index, previous: nil) }
        #expect(claims.takeWaiting() == 2)
        claims.wait(1, previous: nil)
        #expect([claims.takeWaiting(), claims.takeWaiting(), claims.takeWaiting()] == [0, 3, 1])
        #expect(claims.takeWaiting() == nil)
        // Emptied, the queue takes new episodes as at first.
        claims.wait(9, previous: nil)
        #expect(claims.takeWaiting() == 9)
    }

    @Test func theFirstWaitingEpisodeARulePicksIsTakenAndTheOthersKeepTheirOrder() {
        var claims = ClaimQueue(count: 6)
        for index in 0..<6 { claims.wait(index, previous: nil) }
        #expect(claims.takeWaiting() == 0)
        // Index 0 was taken: a rule matching it finds the next match among those still waiting.
        #expect(claims.takeWaiting { $0 % 2 == 0 } == 2)
        #expect(claims.takeWaiting { $0 > 100 } == nil)
        #expect(claims.takeAllWaiting() == [1, 3, 4, 5])
        #expect(claims.takeWaiting() == nil)
        #expect(claims.takeAllWaiting() == [])
    }

    @Test func theEarlierRecordIsHandedOverOnce() {
        var claims = ClaimQueue(count: 2)
        claims.wait(0, previous: record("g0"))
        claims.wait(1, previous: nil)
        #expect(claims.takePrevious(of: 0)?.identity == "g0")
        #expect(claims.takePrevious(of: 0) == nil, "handed over once")
        #expect(claims.takePrevious(of: 1) == nil, "a first claim has none")
    }
}
