@testable import PodcastHTTP
@testable import PodcastKit
import Testing

/// `HostWatch`, `FeedDeadlines` and `FeedRound.failure`: the pure rules of a round of feeds. A host
/// that fails to answer twice with no answer between is skipped for the rest of the round (said
/// once); which failures count as "did not answer" and which host they blame; a time-out named
/// by the deadline that ran out; the first-byte timeout never longer than the feed's deadline.
@Suite(.timeLimit(.minutes(5))) struct HostWatchTests {
    private static let feed = "http://feeds.example.com/a.xml"

    private func failure(_ kind: FailedTransfer.Kind, url: String = feed, received: Int64 = 0) -> FailedTransfer {
        FailedTransfer(id: FeedRound.firstID, kind: kind, url: url, received: received)
    }

    private func http(_ kind: HTTPError.Kind) -> FailedTransfer.Kind {
        .http(HTTPError(kind: kind, url: Self.feed, detail: "", advice: ""))
    }

    // MARK: HostWatch

    @Test func oneFailureDoesNotSkipAHost() {
        var watch = HostWatch()
        #expect(watch.failed("a") == false)
        #expect(!watch.isSkipped("a"))
    }

    @Test func theSecondFailureInARowSkipsItAndSaysSoOnce() {
        var watch = HostWatch()
        _ = watch.failed("a")
        #expect(watch.failed("a") == true)
        #expect(watch.isSkipped("a"))
        #expect(watch.failed("a") == false, "already skipped: not said again")
        #expect(watch.isSkipped("a"))
    }

    @Test func anAnswerBetweenFailuresStartsTheCountAgain() {
        var watch = HostWatch()
        _ = watch.failed("a")
        watch.answered("a")
        #expect(watch.failed("a") == false)
        #expect(!watch.isSkipped("a"))
    }

    @Test func hostsAreCountedApart() {
        var watch = HostWatch()
        _ = watch.failed("a")
        #expect(watch.failed("b") == false, "one failure of b, whatever a did")
        #expect(!watch.isSkipped("a") && !watch.isSkipped("b"))
    }

    @Test func aSkippedHostStaysSkippedForTheRoundEvenIfItAnswersLater() {
        var watch = HostWatch()
        _ = watch.failed("a")
        _ = watch.failed("a")
        // A feed of that host asked before the skip may still answer.
        watch.answered("a")
        #expect(watch.isSkipped("a"))
        #expect(watch.failed("a") == false)
    }

    // MARK: What did not answer

    @Test func aHostThatCouldNotBeReachedOrSaidNothingDidNotAnswer() {
        #expect(failure(.noAnswer(.seconds(30))).hostDidNotAnswer)
        #expect(failure(http(.hostNotFound)).hostDidNotAnswer)
        #expect(failure(http(.cannotConnect)).hostDidNotAnswer)
        #expect(failure(http(.timedOut)).hostDidNotAnswer)
        #expect(failure(http(.connectionLost)).hostDidNotAnswer)
        #expect(failure(.overTime(.seconds(120))).hostDidNotAnswer)
    }

    @Test func aHostThatSentSomethingAnswered() {
        #expect(!failure(http(.timedOut), received: 1).hostDidNotAnswer)
        #expect(!failure(http(.connectionLost), received: 10).hostDidNotAnswer)
        #expect(!failure(.overTime(.seconds(120)), received: 5).hostDidNotAnswer)
        #expect(!failure(http(.status(503))).hostDidNotAnswer, "a 503 is an answer")
        #expect(!failure(http(.tls)).hostDidNotAnswer)
        #expect(!failure(.htmlInsteadOfMedia).hostDidNotAnswer)
        #expect(!failure(.cancelled).hostDidNotAnswer)
    }

    // MARK: FeedRound.failure

    @Test func theHostBlamedIsWhereARedirectLedNotTheFeedsOwn() {
        let deadlines = FeedDeadlines()
        let redirected = FeedRound.failure(
            failure(.noAnswer(.seconds(30)), url: "https://CDN.example.net:8443/a.xml"), fetchedFrom: "feeds.example.com",
            source: Self.feed, deadlines: deadlines)
        #expect(redirected.host == "cdn.example.net:8443")
        let unknown = FeedRound.failure(
            failure(.noAnswer(.seconds(30)), url: ""), fetchedFrom: "feeds.example.com", source: Self.feed, deadlines: deadlines)
        #expect(unknown.host == "feeds.example.com", "no URL in the failure: the feed's own host")
    }

    @Test func overTimeWithNothingReceivedIsAServerThatNeverAnswered() {
        let deadlines = FeedDeadlines(feed: .seconds(60))
        let (_, error) = FeedRound.failure(
            failure(.overTime(.seconds(60))), fetchedFrom: "feeds.example.com", source: Self.feed, deadlines: deadlines)
        #expect(error == FeedError(.noAnswer(.seconds(30)), source: Self.feed))
    }

    @Test func overTimeAfterSomeBytesIsTheFeedsDeadline() {
        let deadlines = FeedDeadlines(feed: .seconds(60))
        let (_, error) = FeedRound.failure(
            failure(.overTime(.seconds(999)), received: 4_096), fetchedFrom: "feeds.example.com", source: Self.feed, deadlines: deadlines)
        #expect(error == FeedError(.overTime(.seconds(60)), source: Self.feed))
    }

    @Test func otherFailuresKeepTheirOwnError() {
        let (_, error) = FeedRound.failure(
            failure(.noAnswer(.seconds(7))), fetchedFrom: "feeds.example.com", source: Self.feed, deadlines: FeedDeadlines())
        #expect(error == FeedError(.noAnswer(.seconds(7)), source: Self.feed))
        let (_, html) = FeedRound.failure(
            failure(.htmlInsteadOfMedia), fetchedFrom: "feeds.example.com", source: Self.feed, deadlines: FeedDeadlines())
        #expect(html == FeedError(.html, source: Self.feed))
    }

    // MARK: FeedDeadlines

    @Test func theDefaultsAreTwoMinutesAFeedAndThirtySecondsToTheFirstByte() {
        #expect(FeedDeadlines() == FeedDeadlines(feed: .seconds(120)))
        #expect(FeedDeadlines().firstByte == .seconds(30))
    }

    @Test func aShortFeedDeadlineShortensTheFirstByteTimeoutAndALongOneDoesNotLengthenIt() {
        #expect(FeedDeadlines(feed: .seconds(10)).firstByte == .seconds(10))
        #expect(FeedDeadlines(feed: .seconds(30)).firstByte == .seconds(30))
        #expect(FeedDeadlines(feed: .seconds(3_600)).firstByte == .seconds(30))
        #expect(FeedDeadlines(feed: .seconds(3_600)).feed == .seconds(3_600))
    }
}
