import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// `podcast import` and `podcast export` through the built binary: a round trip between two
/// homes keeps every subscription, a real app's export is read, a broken file gets one line.
@Suite(.timeLimit(.minutes(5))) struct OPMLCommandTests {
    private func subscriptions(_ podcast: PodcastBinary) async throws -> [[String: Any]] {
        let listed = try await podcast.run(["subscriptions", "--json"])
        #expect(listed.status == 0, "subscriptions: \(listed.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        return document?["subscriptions"] as? [[String: Any]] ?? []
    }

    @Test func exportThenImportIntoAFreshHomeKeepsEverySubscription() async throws {
        let server = try LoopbackServer()
        for (index, title) in ["Zeta Show", "Ünïcode & Friends — 音", "Alpha \"Quoted\" <Show>"].enumerated() {
            server.setRoute("/\(index).xml", .fixed(body: Data("<rss><channel><title>\(title.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;"))</title><link>http://example.com/\(index)</link></channel></rss>".utf8)))
        }
        let source = try PodcastBinary()
        let subscribed = try await source.run(["subscribe"] + (0..<3).map { server.url("/\($0).xml") })
        #expect(subscribed.status == 0, "subscribe: \(subscribed.stderr)")
        let exported = try await source.run(["export"])
        #expect(exported.status == 0)
        #expect(exported.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">"))

        let target = try PodcastBinary()
        let file = target.home.path("subscriptions.opml")
        try exported.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await target.run(["import", file, "--first", "0", "--json"])
        #expect(imported.status == 0, "import: \(imported.stderr)")
        #expect(imported.stderr.contains("3 added, 0 already subscribed"))
        #expect(server.requests.count == 3, "import fetched feeds: \(server.requests.map(\.path))")

        let before = try await subscriptions(source).map { [$0["title"] as? String, $0["url"] as? String, $0["html_url"] as? String] }
        let after = try await subscriptions(target).map { [$0["title"] as? String, $0["url"] as? String, $0["html_url"] as? String] }
        #expect(after == before)
        #expect(try await subscriptions(target).allSatisfy { $0["first"] as? Int == 0 })

        // Once more: nothing doubles.
        let again = try await target.run(["import", file])
        #expect(again.stderr.contains("0 added, 3 already subscribed"))
        #expect(try await subscriptions(target).count == 3)
    }

    /// A hostile list (a 9 MB title, titles with line breaks, controls and markup, an address
    /// with a line break) is imported with the title capped and the broken address refused in one
    /// line; its export is small, and importing that into a fresh home and exporting again gives
    /// the same file: export then import is an identity.
    @Test func aHostileListIsImportedCappedAndItsExportReadsBackTheSame() async throws {
        let source = try PodcastBinary()
        let outlines = [
            #"<outline type="rss" text="\#(String(repeating: "Long ", count: 1_800_000))" xmlUrl="https://example.com/long.xml"/>"#,
            #"<outline type="rss" text="Two&#10;lines&#9;and &#133;red&amp;&lt;b&gt;" xmlUrl="https://example.com/two.xml?a=1&amp;b=%0A"/>"#,
            #"<outline type="rss" text="  é&#769;&#38;&#x1F3FB;  " xmlUrl="https://example.com/é.xml"/>"#,
            #"<outline type="rss" text="Broken" xmlUrl="https://example.com/a&#10;b.xml"/>"#,
        ]
        let list = source.home.path("hostile.opml")
        try ("<?xml version=\"1.0\"?><opml version=\"2.0\"><body>" + outlines.joined(separator: "\n") + "</body></opml>")
            .write(toFile: list, atomically: true, encoding: .utf8)
        let imported = try await source.run(["import", list])
        #expect(imported.status == 0, "import: \(imported.stderr)")
        #expect(imported.stderr.contains("3 added"), "\(imported.stderr)")
        #expect(imported.stderr.contains(#"the feed address https://example.com/a\nb.xml has a control character in it"#), "\(imported.stderr)")
        let titles = try await subscriptions(source).compactMap { $0["title"] as? String }
        #expect(titles.allSatisfy { $0.utf8.count <= Subscription.maxTitleBytes }, "\(titles.map(\.utf8.count))")
        #expect(titles.contains("Two lines and red&<b>"), "\(titles)")

        let first = try await source.run(["export"])
        #expect(first.status == 0, "export: \(first.stderr)")
        #expect(first.stdout.utf8.count < 8_192, "export wrote \(first.stdout.utf8.count) bytes")
        let target = try PodcastBinary()
        let file = target.home.path("subscriptions.opml")
        try first.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let again = try await target.run(["import", file])
        #expect(again.status == 0, "import: \(again.stderr)")
        #expect(again.stderr.contains("3 added"), "\(again.stderr)")
        let second = try await target.run(["export"])
        let withoutDate = { (text: String) in text.split(separator: "\n").filter { !$0.contains("<dateCreated>") } }
        #expect(withoutDate(second.stdout) == withoutDate(first.stdout))
        let fields = { (list: [[String: Any]]) in list.map { [$0["title"] as? String, $0["url"] as? String] } }
        #expect(fields(try await subscriptions(target)) == fields(try await subscriptions(source)))
    }

    @Test func anotherAppsExportIsReadWithItsNestedOutlines() async throws {
        let podcast = try PodcastBinary()
        let file = Fixtures.directory.appending(path: "opml/podcast-archiver/feeds.opml").path
        let imported = try await podcast.run(["import", file])
        #expect(imported.status == 0, "import: \(imported.stderr)")
        #expect(try await subscriptions(podcast).count == 23)
    }

    @Test func aBrokenFileIsOneLineWithItsPlace() async throws {
        let podcast = try PodcastBinary()
        let file = Fixtures.directory.appending(path: "opml/listparser/malformed/end-element-unexpected.xml").path
        let imported = try await podcast.run(["import", file])
        #expect(imported.status == 1)
        #expect(imported.stderrLines.count == 1)
        #expect(imported.stderr.contains("broken XML at line 13:14"), "import: \(imported.stderr)")
        let missing = try await podcast.run(["import", podcast.home.path("nowhere.opml")])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("cannot read the OPML file"))
        #expect(try await subscriptions(podcast).isEmpty)
    }

    @Test func aWebAddressIsNotAFileAndImportSaysWhatToRunInstead() async throws {
        let podcast = try PodcastBinary()
        let url = "http://127.0.0.1:9/subscriptions.opml"
        let imported = try await podcast.run(["import", url])
        #expect(imported.status == 64)
        #expect(imported.stderr == "error: import reads an OPML file, and \(url) is a web address; to subscribe to the feed there, run "
            + "podcast subscribe \(url); to import a list from there, save it first: "
            + "curl -o subscriptions.opml \(url) && podcast import subscriptions.opml\n")
        #expect(try await subscriptions(podcast).isEmpty)
    }

    @Test func aFileURLIsReadAsTheFileItNames() async throws {
        let podcast = try PodcastBinary()
        let opml = podcast.home.path("my list.opml")
        try #"<opml version="2.0"><body><outline text="Far" xmlUrl="http://127.0.0.1:9/feed.xml"/></body></opml>"#
            .write(toFile: opml, atomically: true, encoding: .utf8)
        let imported = try await podcast.run(["import", "file://" + opml.replacing(" ", with: "%20")])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try await subscriptions(podcast).count == 1)
    }

    @Test func aFeedAddressWithoutItsSchemeIsSubscribedOverHTTPSWithANote() async throws {
        let podcast = try PodcastBinary()
        let file = podcast.home.path("subscriptions.opml")
        try """
            <?xml version="1.0"?><opml version="2.0"><head><title>s</title></head><body>
            <outline text="Tiny Tech" type="rss" xmlUrl="feeds.example.com/rss"/>
            </body></opml>
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await podcast.run(["import", file])
        #expect(imported.status == 0, "import: \(imported.stderr)")
        #expect(imported.stderr.contains(
            "note: \(file): \"Tiny Tech\" gives its feed as feeds.example.com/rss, without a scheme; "
                + "subscribed to https://feeds.example.com/rss (for http, subscribe to http://feeds.example.com/rss instead)\n"),
            "\(imported.stderr)")
        #expect(try await subscriptions(podcast).map { $0["url"] as? String } == ["https://feeds.example.com/rss"])
    }
}
