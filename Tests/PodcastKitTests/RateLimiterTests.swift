@testable import PodcastKit
import Testing

/// The speed cap's bucket, on a clock the test sets.
@Suite(.timeLimit(.minutes(5))) struct RateLimiterTests {
    @Test func aFullBucketGivesAQuarterSecondThenRefillsAtTheCap() {
        let start = ContinuousClock.now
        let limiter = RateLimiter(bytesPerSecond: 400_000, now: start)
        #expect(limiter.allows(now: start))
        limiter.take(100_000)  // a quarter second's worth: the whole bucket
        #expect(!limiter.allows(now: start))
        // 1 byte short is owed; it comes back at 400,000 a second.
        #expect(limiter.wait(now: start) > .zero && limiter.wait(now: start) <= .milliseconds(1))
        limiter.take(40_000)  // one piece taken ahead of the cap is owed too
        #expect(!limiter.allows(now: start + .milliseconds(90)))
        #expect(limiter.allows(now: start + .milliseconds(101)))
    }

    @Test func anIdleBucketHoldsNoMoreThanAQuarterSecond() {
        let start = ContinuousClock.now
        let limiter = RateLimiter(bytesPerSecond: 400_000, now: start)
        #expect(limiter.allows(now: start + .seconds(10)))
        limiter.take(100_000)
        #expect(!limiter.allows(now: start + .seconds(10)), "ten idle seconds did not save ten seconds' worth")
    }

    @Test func aSlowCapStillLetsOneWholePieceThrough() {
        let start = ContinuousClock.now
        let limiter = RateLimiter(bytesPerSecond: 1_000, now: start)
        #expect(limiter.allows(now: start))
        limiter.take(16 * 1024)
        #expect(!limiter.allows(now: start))
        #expect(limiter.wait(now: start) <= .seconds(1))
    }
}
