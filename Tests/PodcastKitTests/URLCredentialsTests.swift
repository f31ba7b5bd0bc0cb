import FoundationEssentials
@testable import PodcastHTTP
import Testing

/// A feed address's `user:password@` leaves the address, is kept for its server only, and comes
/// back on every request to that server, never on one to another.
@Suite(.timeLimit(.minutes(1))) struct URLCredentialsTests {
    @Test func takingLeavesTheBareAddressAndKeepsTheUserinfoForItsServer() {
        var credentials = URLCredentials()
        let bare = credentials.take(from: "https://member:p%40ss@Feeds.Example.com/show/feed.xml?page=1")
        #expect(bare == "https://feeds.example.com/show/feed.xml?page=1")
        #expect(credentials.applied(to: "https://feeds.example.com/media/ep1.mp3") == "https://member:p%40ss@feeds.example.com/media/ep1.mp3")
        #expect(credentials.applied(to: "https://FEEDS.example.com:443/x") == "https://member:p%40ss@FEEDS.example.com:443/x")
    }

    @Test func anAddressWithoutUserinfoIsKeptAsItIsAndTakesNothing() {
        var credentials = URLCredentials()
        #expect(credentials.take(from: "https://example.com/feed.xml") == "https://example.com/feed.xml")
        #expect(credentials.take(from: "/path/to/feed.xml") == "/path/to/feed.xml")
        #expect(credentials.isEmpty)
    }

    @Test(arguments: [
        "http://feeds.example.com/ep.mp3",  // another scheme
        "https://feeds.example.com:8443/ep.mp3",  // another port
        "https://cdn.example.com/ep.mp3",  // another host
        "https://feeds.example.com.evil.test/ep.mp3",  // a host that only starts alike
    ])
    func anotherServerNeverGetsThem(url: String) {
        var credentials = URLCredentials()
        _ = credentials.take(from: "https://member:secret@feeds.example.com/feed.xml")
        #expect(credentials.applied(to: url) == url)
    }

    @Test func anAddressWithItsOwnUserinfoKeepsIt() {
        var credentials = URLCredentials()
        _ = credentials.take(from: "https://member:secret@feeds.example.com/feed.xml")
        let own = "https://listener:other@feeds.example.com/ep.mp3"
        #expect(credentials.applied(to: own) == own)
    }

    @Test func theyRoundTripThroughTheSecretsFilesEncoding() throws {
        var credentials = URLCredentials()
        _ = credentials.take(from: "http://a:b@127.0.0.1:8080/feed.xml")
        _ = credentials.take(from: "https://c:d@[::1]/feed.xml")
        let decoded = try JSONDecoder().decode(URLCredentials.self, from: try JSONEncoder().encode(credentials))
        #expect(decoded == credentials)
        #expect(decoded.applied(to: "https://[::1]/ep.mp3") == "https://c:d@[::1]/ep.mp3")
    }
}
