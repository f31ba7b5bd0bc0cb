import CCurl
@testable import PodcastHTTP
@testable import PodcastKit
import Testing

/// The redirect decisions one-shot requests (`HTTPClient`) and engine transfers (`Transfer`)
/// share: whether a hop is followed, which headers it carries, and what becomes of its body.
/// Pure values, no server: each case takes milliseconds.
@Suite(.timeLimit(.minutes(5))) struct RedirectRuleTests {
    private let settings = HTTPSettings(maxRedirects: 2)

    // MARK: Whether a hop is followed

    @Test func aDowngradeToPlainHTTPIsRefusedEvenOnTheSameHost() {
        let refusal = RedirectRule.refusal(from: "https://a.example/feed.xml", to: "http://a.example/feed.xml", followed: 0, settings: settings)
        #expect(refusal == HTTPError(
            kind: .insecureRedirect, url: "https://a.example/feed.xml",
            detail: "refused the redirect from https to plain http (http://a.example/feed.xml)",
            advice: "the rest would travel unencrypted; set allow-insecure-redirects = true in the configuration "
                + "file (or pass --allow-insecure-redirects) to follow it anyway"))
    }

    @Test func aDowngradeIsFollowedWhenAllowedAndAnUpgradeAlways() {
        var allowing = settings
        allowing.allowsInsecureRedirects = true
        #expect(RedirectRule.refusal(from: "https://a.example/x", to: "http://b.example/x", followed: 0, settings: allowing) == nil)
        #expect(RedirectRule.refusal(from: "http://a.example/x", to: "https://b.example/x", followed: 0, settings: settings) == nil)
        #expect(RedirectRule.refusal(from: "http://a.example/x", to: "http://b.example/x", followed: 0, settings: settings) == nil)
    }

    @Test func theHopPastTheLimitIsRefusedAndTheLastOneWithinItFollowed() {
        #expect(RedirectRule.refusal(from: "http://a.example/1", to: "http://a.example/2", followed: 1, settings: settings) == nil)
        #expect(RedirectRule.refusal(from: "http://a.example/2", to: "http://a.example/3", followed: 2, settings: settings) == HTTPError(
            kind: .tooManyRedirects, url: "http://a.example/2", detail: "more than 2 redirects",
            advice: "the server redirects in a loop; report it to the publisher"))
        let none = HTTPSettings(maxRedirects: 0)
        #expect(RedirectRule.refusal(from: "http://a.example/1", to: "http://a.example/2", followed: 0, settings: none)?.kind == .tooManyRedirects)
    }

    @Test func onlyTheFiveRedirectStatusesAreFollowedAndTwoAreMovesForGood() {
        #expect(RedirectRule.followedStatuses == [301, 302, 303, 307, 308])
        #expect(RedirectRule.permanentStatuses == [301, 308])
    }

    // MARK: Which headers a hop carries

    @Test func unscopedHeadersStayOnASameOriginHopAndAreDroppedForAnotherOrigin() {
        let headers = RequestHeaders(fields: ["Authorization: Bearer s3cret"])
        let start = "https://feeds.example.com/ep.mp3"
        #expect(headers.fields(for: "https://feeds.example.com/cdn/ep.mp3", startingAt: start) == ["Authorization: Bearer s3cret"])
        #expect(headers.fields(for: "https://media.example.net/ep.mp3", startingAt: start) == [])
        #expect(headers.fields(for: "https://media.feeds.example.com/ep.mp3", startingAt: start) == [])
        // Back at the server the request started at, after a hop elsewhere, they go again.
        #expect(headers.fields(for: "https://feeds.example.com/ep.mp3?token=1", startingAt: start) == ["Authorization: Bearer s3cret"])
    }

    @Test func headerHostsCarryHeadersToTheHostsTheyNameOnly() {
        let headers = RequestHeaders(fields: ["X-Key: k"], hosts: ["media.example.net"])
        let start = "https://feeds.example.com/ep.mp3"
        #expect(headers.fields(for: start, startingAt: start) == [])
        #expect(headers.fields(for: "https://media.example.net/ep.mp3", startingAt: start) == ["X-Key: k"])
        #expect(headers.fields(for: "http://edge.media.example.net:8080/ep.mp3", startingAt: start) == ["X-Key: k"])
        #expect(headers.fields(for: "https://example.net/ep.mp3", startingAt: start) == [])
    }

    // MARK: What becomes of a redirect's body

    @Test func aShortNoteIsDroppedWhole() {
        var note = RedirectNote()
        #expect(note.drop(300) == 300)
        #expect(note.drop(RedirectNote.longest - 300) == RedirectNote.longest - 300)
        #expect(note.dropped == RedirectNote.longest)
        #expect(!note.isCut)
        #expect(note.hopResult(CURLE_OK) == CURLE_OK)
        #expect(note.hopResult(CURLE_WRITE_ERROR) == CURLE_WRITE_ERROR)
    }

    @Test func aNotePastTheLongestIsCutAndItsHopStillEndsAsARedirect() {
        var note = RedirectNote()
        #expect(note.drop(RedirectNote.longest) == RedirectNote.longest)
        #expect(note.drop(1) == 0)
        #expect(note.isCut)
        #expect(note.hopResult(CURLE_WRITE_ERROR) == CURLE_OK)
        // Only the cut is forgiven: a network failure while the note arrives stands.
        #expect(note.hopResult(CURLE_RECV_ERROR) == CURLE_RECV_ERROR)
        #expect(RedirectNote.longest == 64 * 1024)
    }
}
