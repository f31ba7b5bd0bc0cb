@testable import PodcastKit
import Testing

/// `BatchChores`: when a batch asks for more episodes, writes progress, polls stop requests and
/// finishes ready files, on a clock the test sets.
@Suite(.timeLimit(.minutes(5))) struct BatchChoresTests {
    private let start = ContinuousClock.now

    @Test func theRefillIsAskedWhenIdleElseOnceASecond() {
        var chores = BatchChores(now: start)
        let due1 = chores.refillDue(idle: false, now: start + .milliseconds(500))
        #expect(!due1)
        let due2 = chores.refillDue(idle: true, now: start + .milliseconds(500))
        #expect(due2)
        let due3 = chores.refillDue(idle: false, now: start + .milliseconds(1_400))
        #expect(!due3)
        let due4 = chores.refillDue(idle: false, now: start + .milliseconds(1_500))
        #expect(due4)
    }

    @Test func progressAndStopRequestsAreLookedAtOnceASecond() {
        var chores = BatchChores(now: start)
        let due5 = chores.progressWriteDue(now: start + .milliseconds(999))
        #expect(!due5)
        let due6 = chores.progressWriteDue(now: start + .seconds(1))
        #expect(due6)
        let due7 = chores.progressWriteDue(now: start + .milliseconds(1_500))
        #expect(!due7)
        let due8 = chores.stopRequestPollDue(now: start + .seconds(1))
        #expect(due8)
        let due9 = chores.stopRequestPollDue(now: start + .milliseconds(1_999))
        #expect(!due9)
    }

    @Test func readyFilesWaitForOthersUpToTheDelayOrAFullGroup() {
        var chores = BatchChores(now: start)
        #expect(!chores.finishingDue(ready: 0, othersRunning: false, now: start))
        chores.fileReady(now: start)
        chores.fileReady(now: start + .milliseconds(30))
        #expect(chores.finishBy == start + BatchChores.finishingDelay, "the first ready file sets the time")
        #expect(!chores.finishingDue(ready: 2, othersRunning: true, now: start + .milliseconds(49)))
        #expect(chores.finishingDue(ready: 2, othersRunning: true, now: start + .milliseconds(50)))
        #expect(chores.finishingDue(ready: 2, othersRunning: false, now: start), "nothing else runs: at once")
        #expect(chores.finishingDue(ready: BatchChores.finishingGroup, othersRunning: true, now: start), "a full group: at once")
        chores.finished()
        #expect(chores.finishBy == nil)
        #expect(chores.wakeBy(refilling: false) == nil)
        #expect(chores.wakeBy(refilling: true) == start + BatchChores.refillInterval)
    }

    @Test func theUserIsToldOnceThatProgressCannotBeRecorded() {
        var chores = BatchChores(now: start)
        let due10 = chores.tellProgressUnrecorded()
        #expect(due10)
        let due11 = chores.tellProgressUnrecorded()
        #expect(!due11)
    }
}
