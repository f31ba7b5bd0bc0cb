import Glibc
@testable import PodcastHTTP
@testable import PodcastKit
import Testing

/// The rules of a round of feeds, without a server: which hosts are skipped, which temporary
/// files are leftovers, what a listing reads when nothing changed, why a feed failed, and
/// which headers a feed request carries.
@Suite(.timeLimit(.minutes(5))) struct FeedRoundRulesTests {
    @Test func aHostIsSkippedAfterTwoFailuresToAnswerWithNoAnswerBetween() {
        var watch = HostWatch()
        let first = watch.failed("a:80")
        watch.answered("a:80")
        let afterAnAnswer = watch.failed("a:80")
        let second = watch.failed("a:80")
        let third = watch.failed("a:80")
        #expect(!first)
        #expect(!afterAnAnswer, "an answer between the failures: bad luck, not a dead host")
        #expect(second, "the second failure in a row skips it")
        #expect(watch.isSkipped("a:80"))
        #expect(!third, "skipped once, said once")
        #expect(!watch.isSkipped("b:80"))
    }

    @Test func theHostOfAFeedIsWhereItsConnectionsGo() {
        #expect(TransferRequest.host(of: "https://user:pw@Feeds.Example.com/a.xml") == "feeds.example.com")
        #expect(TransferRequest.host(of: "http://127.0.0.1:8080/a.xml?x=1") == "127.0.0.1:8080")
        #expect(TransferRequest.host(of: "http://example.com:80/a.xml") == "example.com")
    }

    @Test func leftoversAreKnownByNameAndProcess() {
        #expect(FeedFile.leftoverProcess(".fetch-123-4.part") == 123)
        #expect(FeedFile.leftoverProcess(".update-77-1.part") == 77, "what earlier versions left")
        #expect(FeedFile.leftoverProcess("0a1b2c3d.xml") == nil, "a cached body")
        #expect(FeedFile.leftoverProcess(".fetch-x-4.part") == nil)
        #expect(FeedFile.leftoverProcess(".fetch-0-4.part") == nil)
        #expect(FeedFile.leftoverProcess(".fetch-12-4.xml") == nil)
        #expect(FeedFile.partialName(number: 3).hasPrefix(".fetch-\(getpid())-3"))
    }

    @Test func aListingReadsTheCachedAnswerOfAFeedThatDidNotChange() {
        var listing = FeedRefresh(subscription: 0, url: "http://h/feed.xml", last: .init(etag: "\"v1\""), listsUnchanged: true)
        #expect(listing.begin(refresh: false) == .fetch(url: "http://h/feed.xml", conditional: true))
        let notModified = listing.answered(.init(status: 304))
        #expect(notModified == .parse(url: "http://h/feed.xml"))
        #expect(listing.notModified)
        var update = FeedRefresh(subscription: 1, url: "http://h/feed.xml", last: .init(etag: "\"v1\""))
        let unchanged = update.answered(.init(status: 304))
        #expect(unchanged == .end(.unchanged), "an update wants only what changed")

        var sameBytes = FeedRefresh(subscription: 0, url: "http://h/feed.xml", last: .init(digest: "d"), listsUnchanged: true)
        let again = sameBytes.answered(.init(status: 200, digest: "d"))
        #expect(again == .parse(url: "http://h/feed.xml"))
    }

    @Test func aListingOfAGoneFeedFailsRatherThanMarkingItGone() {
        let gone = FeedError(.http(.status(410, url: "http://h/feed.xml", retryAfter: nil)), source: "http://h/feed.xml")
        var listing = FeedRefresh(subscription: 0, url: "http://h/feed.xml", listsUnchanged: true)
        let listed = listing.failed(gone)
        #expect(listed == .end(.failed(gone)))
        var update = FeedRefresh(subscription: 1, url: "http://h/feed.xml")
        let updated = update.failed(gone)
        #expect(updated == .end(.gone))
    }

    @Test func aFailedTransferBecomesAFeedErrorWithItsCause() {
        let url = "http://h/feed.xml"
        func error(_ kind: FailedTransfer.Kind, received: Int64 = 0) -> FeedError {
            FeedError(FailedTransfer(id: 1, kind: kind, url: url, received: received), source: url)
        }
        #expect(error(.noAnswer(.seconds(30))).cause == "timed out")
        #expect(error(.overTime(.seconds(120))).cause == "timed out")
        #expect(error(.overTime(.seconds(120))).description.contains("not fetched within 2 min (feed-timeout)"))
        #expect(error(.htmlInsteadOfMedia).kind == .html)
        #expect(error(.htmlInsteadOfMedia).cause == "HTML page")
        #expect(error(.http(.status(404, url: url, retryAfter: nil))).cause == "HTTP 404")
        #expect(error(.cancelled).kind == .interrupted)
        #expect(FeedError(.hostSkipped(host: "h"), source: url).cause == "host down")
        #expect(FeedError(.hostSkipped(host: "h"), source: url).description.contains("h did not answer twice"))
    }

    @Test func feedRequestsCarryTheUsersHeadersOnlyWhereTheyAreScoped() {
        var settings = HTTPSettings()
        settings.headers = RequestHeaders(fields: ["Authorization: Bearer x"], hosts: [])
        #expect(settings.forFeeds.headers == RequestHeaders(), "unscoped: for downloads only")
        settings.headers = RequestHeaders(fields: ["Authorization: Bearer x"], hosts: ["feeds.example.com"])
        #expect(settings.forFeeds.headers == settings.headers, "scoped by header-hosts: they go where named")
        #expect(settings.forFeeds.userAgent == settings.userAgent)
    }

    @Test func theFirstByteTimeoutIsNeverLongerThanTheFeedsDeadline() {
        #expect(FeedDeadlines().feed == .seconds(120) && FeedDeadlines().firstByte == .seconds(30))
        #expect(FeedDeadlines(feed: .seconds(5)).firstByte == .seconds(5))
    }
}
