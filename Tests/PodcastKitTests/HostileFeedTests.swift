import Foundation
import PodcastKit
import PodcastTestSupport
import Testing

/// Every hostile document is refused or read harmlessly: no crash, no hang, no expansion, no fetch.
@Suite(.timeLimit(.minutes(5))) struct HostileFeedTests {
    /// Every file under fixtures/hostile, relative to the fixtures folder.
    static let hostileFiles: [String] = {
        let root = Fixtures.directory.appending(path: "hostile")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath && !$0.path.contains("/result/") } ?? []
        return files.map { String($0.path.dropFirst(Fixtures.directory.path.count + 1)) }.sorted()
    }()

    /// A count guard: a missing or moved fixture folder fails here instead of running no case.
    @Test func hostileFixturesAreFound() {
        #expect(Self.hostileFiles.count == 77)
    }

    @Test(arguments: hostileFiles)
    func hostileDocumentIsHandledQuickly(_ path: String) throws {
        let bytes = try Fixtures.data(path)
        let started = ContinuousClock.now
        let outcome = Result { try parseFeed(bytes) }
        let elapsed = ContinuousClock.now - started
        // A hang guard, not a benchmark: these take milliseconds; expansion would take minutes.
        #expect(elapsed < .seconds(10), "\(path) took \(elapsed)")
        if case .success(let result) = outcome {
            // What was read is bounded: no entity expansion can inflate a text.
            let longest = result.feed.episodes.map { ($0.description ?? "").utf8.count }.max() ?? 0
            #expect(longest <= 512 * 1024)
        }
    }

    /// Inputs the fuzzer once crashed the parser with (or, for `leak-…`, made it leak), kept in
    /// Tests/Fixtures/fuzz.
    static let fuzzerFindings: [URL] = {
        let directory = Fixtures.directory.appending(path: "fuzz")
        return ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []).sorted { $0.path < $1.path }
    }()

    @Test func fuzzerFindingsAreKept() {
        #expect(Self.fuzzerFindings.count == 8)
    }

    @Test(arguments: fuzzerFindings)
    func fuzzerFindingNoLongerCrashes(_ file: URL) throws {
        // Reaching the end of this test is the assertion: the crash was an abort of the process.
        let bytes = try Data(contentsOf: file)
        for pieceSize in [1, 7, 4096] {
            _ = try? parseFeed(bytes, pieceSize: pieceSize)
        }
        if file.lastPathComponent.hasPrefix("repro-alternate") {
            #expect(try parseFeed(bytes).feed.episodes.first?.alternateEnclosures.count == 1)
        }
    }

    @Test(arguments: [
        "hostile/defusedxml/xmlbomb.xml", "hostile/defusedxml/xmlbomb2.xml", "hostile/defusedxml/quadratic.xml",
        "hostile/defusedxml/cyclic.xml",
    ])
    func entityBombsExpandNothing(_ path: String) throws {
        // Wrapped as a feed so the text is actually read into an episode.
        let original = String(decoding: try Fixtures.data(path), as: UTF8.self)
        let feed = Self.asFeed(original)
        // Refusing the document is as good as reading it unexpanded; expanding it is not.
        guard let result = try? parseFeed(Data(feed.utf8)) else { return }
        let text = (result.feed.episodes.first?.description ?? "") + (result.feed.episodes.first?.title ?? "")
        #expect(text.utf8.count < 10_000, "\(path) expanded to \(text.utf8.count) bytes")
        #expect(result.warnings.contains { $0.contains("entities") })
    }

    @Test func externalEntitiesAndDTDsAreNeverFetched() throws {
        let canary = try LoopbackServer(routes: [
            "/entity": .fixed(body: Data("STOLEN".utf8)), "/dtd": .fixed(body: Data("<!ENTITY x 'STOLEN'>".utf8)),
        ])
        let documents = [
            // External general entity (XXE) to a URL and to a file.
            """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!ENTITY ext SYSTEM "\(canary.url("/entity"))"><!ENTITY file SYSTEM "file:///etc/passwd">]>
            <rss><channel><title>t</title><item><title>&ext;&file;</title><description>&ext;</description></item></channel></rss>
            """,
            // External DTD and a parameter entity pulling another.
            """
            <?xml version="1.0"?>
            <!DOCTYPE rss SYSTEM "\(canary.url("/dtd"))">
            <rss><channel><title>t</title><item><title>&x;</title></item></channel></rss>
            """,
            """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!ENTITY % remote SYSTEM "\(canary.url("/dtd"))"> %remote;]>
            <rss><channel><title>t</title><item><title>&x;</title></item></channel></rss>
            """,
            // XInclude-looking markup is just markup.
            """
            <rss xmlns:xi="http://www.w3.org/2001/XInclude"><channel><title>t</title>
            <item><title>a</title><xi:include href="\(canary.url("/entity"))" parse="text"/></item></channel></rss>
            """,
        ]
        for document in documents {
            let result = try? parseFeed(Data(document.utf8))
            let titles = result?.feed.episodes.map(\.title).joined() ?? ""
            #expect(!titles.contains("STOLEN"))
            #expect(!titles.contains("root:"))
        }
        #expect(canary.requests.isEmpty)
    }

    /// `document` with its root element replaced by an RSS item carrying the root's content.
    private static func asFeed(_ document: String) -> String {
        guard let doctypeEnd = document.range(of: "]>") else { return document }
        let prolog = document[..<doctypeEnd.upperBound].replacingOccurrences(of: "<!DOCTYPE \\w+", with: "<!DOCTYPE rss", options: .regularExpression)
        let body = document[doctypeEnd.upperBound...]
        let inner = body.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
        return prolog + "<rss><channel><title>t</title><item><title>x</title><description>\(inner)</description></item></channel></rss>"
    }
}
