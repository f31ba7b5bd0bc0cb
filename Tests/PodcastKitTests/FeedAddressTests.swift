import PodcastHTTP
import PodcastKit
import Testing

/// One feed address, however it is written: the scheme and host's case, a default port and a
/// fragment make no second subscription; everything else of the address is kept as written.
@Suite(.timeLimit(.minutes(5))) struct FeedAddressTests {
    @Test(arguments: [
        ("HTTP://Example.COM/Feed.xml", "http://example.com/Feed.xml"),
        ("http://example.com/feed.xml#latest", "http://example.com/feed.xml"),
        ("http://example.com:80/feed.xml", "http://example.com/feed.xml"),
        ("https://example.com:443/feed.xml", "https://example.com/feed.xml"),
        ("HTTPS://EXAMPLE.com:443?id=7#x", "https://example.com?id=7"),
        ("http://example.com", "http://example.com"),
    ])
    func schemeHostDefaultPortAndFragmentAreNormalised(written: String, normalised: String) {
        #expect(FeedAddress.normalized(written) == normalised)
    }

    @Test func anotherPortIsKept() {
        #expect(FeedAddress.normalized("http://example.com:443/feed") == "http://example.com:443/feed")
        #expect(FeedAddress.normalized("https://example.com:80/feed") == "https://example.com:80/feed")
        #expect(FeedAddress.normalized("http://Example.com:8080/feed") == "http://example.com:8080/feed")
    }

    @Test func anIPv6HostKeepsItsBracketsAndLosesOnlyItsCase() {
        #expect(FeedAddress.normalized("http://[FE80::1]:80/feed#f") == "http://[fe80::1]/feed")
        #expect(FeedAddress.normalized("http://[::1]:8080/feed") == "http://[::1]:8080/feed")
    }

    @Test func userinfoIsKeptExactly() {
        #expect(FeedAddress.normalized("https://User:PaSs@Example.com:443/f") == "https://User:PaSs@example.com/f")
    }

    @Test func pathAndQueryAndTheirPercentEncodingAreUntouched() {
        let written = "http://example.com/Path%2fA/%7Efeed.xml?Token=AbC%3D&x=%41"
        #expect(FeedAddress.normalized(written) == written)
    }

    @Test func theSchemeOnlyChangesItsCase() {
        #expect(FeedAddress.normalized("Http://example.com/a") == "http://example.com/a")
        #expect(FeedAddress.normalized("http://example.com/a").hasPrefix("http://"))
        #expect(FeedAddress.normalized("https://example.com/a").hasPrefix("https://"))
    }

    @Test func whatIsNoHTTPAddressIsLeftAsItIs() {
        #expect(FeedAddress.normalized("ftp://Example.com/x#y") == "ftp://Example.com/x#y")
        #expect(FeedAddress.normalized("/home/me/feed.xml") == "/home/me/feed.xml")
    }

    @Test func twoFormsOfOneAddressAreTheSameFeed() {
        #expect(FeedAddress.normalized("HTTP://h/x") == FeedAddress.normalized("http://h:80/x#frag"))
        #expect(FeedAddress.normalized("http://h/x") != FeedAddress.normalized("http://h/X"))
    }
}
