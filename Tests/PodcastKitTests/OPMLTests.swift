import Foundation
import PodcastHTTP
import PodcastKit
import PodcastTestSupport
import PodcastText
import Testing

/// Reads `text` as the OPML file `subscriptions.opml` in /home/user.
private func readOPML(_ text: String, documentURL: String = "file:///home/user/subscriptions.opml") throws(OPMLError) -> OPMLDocument {
    try OPMLReader.read(Array(text.utf8), documentURL: documentURL, source: "subscriptions.opml")
}

/// The one-line message reading `text` fails with, or nil when it is read.
private func failure(_ text: String) -> String? {
    do {
        _ = try readOPML(text)
        return nil
    } catch {
        return error.description
    }
}

/// An OPML 2.0 document whose body is `body`.
private func opml(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <opml version="2.0">
    <head><title>Subscriptions</title></head>
    <body>
    \(body)
    </body>
    </opml>
    """
}

@Suite(.timeLimit(.minutes(5))) struct OPMLReaderTests {
    @Test func nestedCategoryOutlinesAreFlattenedInFileOrder() throws {
        let document = try readOPML(opml("""
            <outline text="News">
              <outline text="World">
                <outline type="rss" text="Deep" xmlUrl="https://example.com/deep.xml"/>
              </outline>
              <outline type="rss" text="Shallow" xmlUrl="https://example.com/shallow.xml"/>
            </outline>
            <outline type="rss" text="Top" xmlUrl="https://example.com/top.xml"/>
            """))
        #expect(document.outlines.map(\.feedURL) == [
            "https://example.com/deep.xml", "https://example.com/shallow.xml", "https://example.com/top.xml",
        ])
    }

    @Test func outlinesWithoutAFeedURLAreNotSubscriptions() throws {
        let document = try readOPML(opml("""
            <outline text="A category"/>
            <outline type="rss" text="Empty" xmlUrl=""/>
            <outline type="rss" text="Blank" xmlUrl="   "/>
            <outline type="rss" text="Feed" xmlUrl="https://example.com/feed"/>
            """))
        #expect(document == OPMLDocument(outlines: [OPMLOutline(title: "Feed", feedURL: "https://example.com/feed")]))
    }

    @Test func anyOutlineTypeIsAcceptedWhenItHasAFeedURL() throws {
        let document = try readOPML(opml("""
            <outline text="none" xmlUrl="https://example.com/1"/>
            <outline type="rss" text="rss" xmlUrl="https://example.com/2"/>
            <outline type="RSS" text="RSS" xmlUrl="https://example.com/3"/>
            <outline type="atom" text="atom" xmlUrl="https://example.com/4"/>
            <outline type="link" text="link" xmlUrl="https://example.com/5"/>
            <outline type="pie" text="pie" xmlUrl="https://example.com/6"/>
            """))
        #expect(document.outlines.map(\.title) == ["none", "rss", "RSS", "atom", "link", "pie"])
    }

    @Test func feedURLAttributeIsMatchedInAnyCase() throws {
        let document = try readOPML(opml("""
            <outline text="a" xmlUrl="https://example.com/a"/>
            <outline text="b" xmlURL="https://example.com/b"/>
            <outline text="c" xmlurl="https://example.com/c" HTMLURL="https://example.com/"/>
            """))
        #expect(document.outlines == [
            OPMLOutline(title: "a", feedURL: "https://example.com/a"),
            OPMLOutline(title: "b", feedURL: "https://example.com/b"),
            OPMLOutline(title: "c", feedURL: "https://example.com/c", htmlURL: "https://example.com/"),
        ])
    }

    @Test func titleComesFromTitleThenText() throws {
        let document = try readOPML(opml("""
            <outline title="The Title" text="The Text" xmlUrl="https://example.com/1"/>
            <outline text="Only Text" xmlUrl="https://example.com/2"/>
            <outline title=" " text="Text Under A Blank Title" xmlUrl="https://example.com/3"/>
            <outline xmlUrl="https://example.com/4"/>
            """))
        #expect(document.outlines.map(\.title) == ["The Title", "Only Text", "Text Under A Blank Title", nil])
    }

    @Test func feedURLsAreTrimmed() throws {
        let document = try readOPML(opml("<outline text=\"t\" xmlUrl=\"  https://example.com/feed\n\t\"/>"))
        #expect(document.outlines.map(\.feedURL) == ["https://example.com/feed"])
    }

    @Test func referencesInAttributesAreDecoded() throws {
        let document = try readOPML(opml("""
            <outline text="Tom &amp; Jerry &lt;3 &quot;caf&#233;&quot; &#x263A; &amp;amp;" \
            xmlUrl="https://example.com/feed?a=1&amp;b=2&#38;c=3"/>
            """))
        #expect(document.outlines == [
            OPMLOutline(title: "Tom & Jerry <3 \"café\" ☺ &amp;", feedURL: "https://example.com/feed?a=1&b=2&c=3"),
        ])
    }

    @Test func relativeFeedURLsResolveAgainstTheDocument() throws {
        let document = try readOPML(
            opml("""
                <outline text="a" xmlUrl="feeds/a.xml" htmlUrl="/shows/a"/>
                <outline text="b" xmlUrl="//cdn.example.org/b.xml"/>
                """),
            documentURL: "https://example.com/lists/subscriptions.opml")
        #expect(document.outlines == [
            OPMLOutline(title: "a", feedURL: "https://example.com/lists/feeds/a.xml", htmlURL: "https://example.com/shows/a"),
            OPMLOutline(title: "b", feedURL: "https://cdn.example.org/b.xml"),
        ])
    }

    @Test func relativeFeedURLsInALocalFileAreSkipped() throws {
        let document = try readOPML(opml(#"<outline text="a" xmlUrl="feeds/a.xml"/>"#))
        #expect(document.outlines.isEmpty)
        #expect(document.skipped == ["file:///home/user/feeds/a.xml"])
    }

    @Test func anAddressWithoutItsSchemeIsTakenAsHTTPSNeverAsAFile() throws {
        let document = try readOPML(opml("""
            <outline text="Tiny Tech" xmlUrl="feeds.example.com/rss"/>
            <outline text="port" xmlUrl="127.0.0.1:8080/feed"/>
            <outline text="beside" xmlUrl="feed.xml"/>
            """))
        let taken = [
            OPMLOutline(title: "Tiny Tech", feedURL: "https://feeds.example.com/rss"),
            OPMLOutline(title: "port", feedURL: "https://127.0.0.1:8080/feed"),
        ]
        #expect(document.outlines == taken)
        #expect(document.schemeless == taken)
        #expect(document.skipped == ["file:///home/user/feed.xml"])
    }

    @Test func feedsThatAreNotHTTPAreSkippedAndListed() throws {
        let document = try readOPML(opml("""
            <outline text="file" xmlUrl="file:///etc/passwd"/>
            <outline text="script" xmlUrl="javascript:alert(1)"/>
            <outline text="itpc" xmlUrl="itpc://example.com/feed"/>
            <outline text="no host" xmlUrl="https:///feed"/>
            <outline text="web" xmlUrl="HTTPS://Example.com/feed"/>
            """))
        #expect(document.outlines == [OPMLOutline(title: "web", feedURL: "HTTPS://Example.com/feed")])
        #expect(document.skipped == ["file:///etc/passwd", "javascript:alert(1)", "itpc://example.com/feed", "https:///feed"])
    }

    @Test func aPageThatIsNotHTTPIsDropped() throws {
        let document = try readOPML(opml(#"<outline text="a" xmlUrl="https://example.com/a" htmlUrl="javascript:alert(1)"/>"#))
        #expect(document.outlines == [OPMLOutline(title: "a", feedURL: "https://example.com/a")])
    }

    @Test func duplicateFeedsAreKeptOnceFirstWinsAndCounted() throws {
        let document = try readOPML(opml("""
            <outline text="First" xmlUrl="https://example.com/feed"/>
            <outline text="Other" xmlUrl="https://example.com/other"/>
            <outline text="Second" xmlUrl=" https://example.com/feed "/>
            <outline text="Category"><outline text="Third" xmlUrl="https://example.com/feed"/></outline>
            """))
        #expect(document.outlines.map(\.title) == ["First", "Other"])
        #expect(document.duplicates == 2)
    }

    @Test func opml1WithADeclaredEncodingIsRead() throws {
        // "Café" in ISO-8859-1: é is the single byte 0xE9.
        let bytes = Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><opml version="1.0"><body><outline text="Caf"#.utf8)
            + [0xE9] + Array(#"" xmlUrl="http://example.com/"/></body></opml>"#.utf8)
        let document = try OPMLReader.read(bytes, documentURL: "file:///tmp/a.opml", source: "a.opml")
        #expect(document.outlines == [OPMLOutline(title: "Café", feedURL: "http://example.com/")])
    }

    @Test func utf16FileWithAByteOrderMarkIsRead() throws {
        let text = #"<?xml version="1.0" encoding="UTF-16"?><opml version="2.0"><body><outline text="日本" xmlUrl="https://example.jp/"/></body></opml>"#
        let bytes: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let document = try OPMLReader.read(bytes, documentURL: "file:///tmp/a.opml", source: "a.opml")
        #expect(document.outlines == [OPMLOutline(title: "日本", feedURL: "https://example.jp/")])
    }

    @Test func aDefaultNamespaceDoesNotHideOutlines() throws {
        let document = try readOPML(#"<opml version="2.0" xmlns="http://opml.org/spec2"><body><outline text="a" xmlUrl="https://example.com/a"/></body></opml>"#)
        #expect(document.outlines.count == 1)
    }
}

@Suite(.timeLimit(.minutes(5))) struct OPMLBrokenFileTests {
    @Test func truncatedFileIsBrokenAtItsEnd() {
        #expect(failure("<?xml version=\"1.0\"?>\n<opml version=\"2.0\">\n<body>\n<outline text=\"a\" xmlUrl=\"https://example.com/a\"/>\n")
            == "OPML file subscriptions.opml: broken XML at line 5:1 (Premature end of data in tag body line 3); "
            + "fix the file or export it again")
    }

    @Test func cutInsideATagIsBroken() {
        #expect(failure("<opml version=\"2.0\">\n<body>\n<outline text=\"a\" xmlU")
            == "OPML file subscriptions.opml: broken XML at line 3:23 (Specification mandates value for attribute xmlU); "
            + "fix the file or export it again")
    }

    @Test func mismatchedTagsAreBrokenWhereTheyMeet() {
        #expect(failure("<?xml version=\"1.0\"?>\n<opml version=\"2.0\">\n<body>\n<outline text=\"a\"/>\n</opml>\n")
            == "OPML file subscriptions.opml: broken XML at line 5:8 (Opening and ending tag mismatch: body line 3 and opml); "
            + "fix the file or export it again")
    }

    @Test func emptyFileIsBroken() {
        #expect(failure("") == "OPML file subscriptions.opml: broken XML at line 1:1 (Document is empty); fix the file or export it again")
    }

    @Test func whiteSpaceOnlyFileIsBroken() {
        #expect(failure("\n  \n")
            == "OPML file subscriptions.opml: broken XML at line 3:1 (Start tag expected, '<' not found); fix the file or export it again")
    }

    @Test func textThatIsNotXMLIsBroken() {
        #expect(failure(#"{"feeds": ["https://example.com/feed"]}"#)
            == "OPML file subscriptions.opml: broken XML at line 1:1 (Start tag expected, '<' not found); fix the file or export it again")
    }

    @Test func aFeedIsNotOPML() {
        #expect(failure("<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>t</title></channel></rss>\n")
            == "OPML file subscriptions.opml: the root element at line 2:19 is <rss>, not <opml>; "
            + "export the subscriptions as OPML from your podcast app")
    }

    @Test func anUndeclaredEntityIsBroken() {
        #expect(failure(opml(#"<outline text="caf&eacute;" xmlUrl="https://example.com/a"/>"#))
            == "OPML file subscriptions.opml: broken XML at line 5:27 (Entity 'eacute' not defined); fix the file or export it again")
    }

    @Test func nestingDeeperThanLibxml2AllowsIsBroken() {
        let deep = String(repeating: "<outline text=\"c\">", count: 300) + String(repeating: "</outline>", count: 300)
        #expect(failure(opml(deep))?.contains("(Excessive depth in document: 256 use XML_PARSE_HUGE option)") == true)
    }

    @Test func aFileOverTheSizeLimitIsRefusedUnread() {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: OPMLReader.maxBytes + 1)
        #expect(throws: OPMLError(.tooLarge(bytes: OPMLReader.maxBytes + 1), source: "big.opml")) {
            try OPMLReader.read(bytes, documentURL: "file:///tmp/big.opml", source: "big.opml")
        }
    }

    @Test func moreFeedsThanTheLimitAreRefused() throws {
        let outline = { (index: Int) in "<outline text=\"\(index)\" xmlUrl=\"https://example.com/\(index)\"/>" }
        let atLimit = (1...OPMLReader.maxOutlines).map(outline).joined(separator: "\n")
        #expect(try readOPML(opml(atLimit)).outlines.count == OPMLReader.maxOutlines)
        #expect(failure(opml(atLimit + outline(0)))
            == "OPML file subscriptions.opml: lists more than 10000 feeds; split it into smaller files")
    }
}

/// Entity declarations stop the parse: nothing is expanded, nothing is fetched.
@Suite(.timeLimit(.minutes(5))) struct OPMLHostileFileTests {
    @Test func billionLaughsIsRefused() {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE opml [
              <!ENTITY lol "lol">
              <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
              <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
            ]>
            <opml version="2.0"><body><outline text="&lol4;" xmlUrl="https://example.com/feed"/></body></opml>
            """
        #expect(failure(laughs) == "OPML file subscriptions.opml: declares XML entities at line 3:21, "
            + "which are refused for safety; export it again from your podcast app")
    }

    @Test func externalEntityIsRefused() {
        let xxe = """
            <?xml version="1.0"?>
            <!DOCTYPE opml [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <opml version="2.0"><body><outline text="&secret;" xmlUrl="https://example.com/feed"/></body></opml>
            """
        #expect(failure(xxe) == "OPML file subscriptions.opml: declares XML entities at line 2:60, "
            + "which are refused for safety; export it again from your podcast app")
    }

    @Test func externalDTDIsNotLoaded() throws {
        // Were the DTD loaded, its entity declaration would be refused and the read would throw.
        let directory = try TemporaryDirectory()
        try Data(#"<!ENTITY who "loaded">"#.utf8).write(to: directory.url.appending(path: "list.dtd"))
        let document = try readOPML("""
            <?xml version="1.0"?>
            <!DOCTYPE opml SYSTEM "\(directory.url.appending(path: "list.dtd").absoluteString)">
            <opml version="2.0"><body><outline text="&who;" xmlUrl="https://example.com/feed"/></body></opml>
            """)
        #expect(document.outlines == [OPMLOutline(title: nil, feedURL: "https://example.com/feed")])
    }

    @Test(arguments: [
        "hostile/defusedxml/xmlbomb.xml", "hostile/defusedxml/xmlbomb2.xml", "hostile/defusedxml/quadratic.xml",
        "hostile/defusedxml/external.xml", "hostile/defusedxml/external_file.xml", "hostile/defusedxml/cyclic.xml",
    ])
    func defusedXMLAttackIsRefused(_ path: String) throws {
        let bytes = [UInt8](try Fixtures.data(path))
        #expect {
            try OPMLReader.read(bytes, documentURL: "file:///tmp/attack.opml", source: "attack.opml")
        } throws: { error in
            guard let error = error as? OPMLError, case .declaresEntities = error.kind else { return false }
            return true
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct OPMLWriterTests {
    /// 2026-11-20 08:00:00 UTC, a Friday.
    static let created = Date(timeIntervalSince1970: 1_795_161_600)

    @Test func documentIsOPML2WithOneOutlineALine() {
        let text = OPMLWriter.document(
            title: "podcast subscriptions",
            outlines: [
                OPMLOutline(title: "Example Radio", feedURL: "https://example.com/feed.xml", htmlURL: "https://example.com/"),
                OPMLOutline(title: "No Page", feedURL: "http://example.org/rss"),
            ],
            created: Self.created)
        #expect(text == """
            <?xml version="1.0" encoding="UTF-8"?>
            <opml version="2.0">
              <head>
                <title>podcast subscriptions</title>
                <dateCreated>Fri, 20 Nov 2026 08:00:00 GMT</dateCreated>
              </head>
              <body>
                <outline type="rss" text="Example Radio" title="Example Radio" xmlUrl="https://example.com/feed.xml" htmlUrl="https://example.com/"/>
                <outline type="rss" text="No Page" title="No Page" xmlUrl="http://example.org/rss"/>
              </body>
            </opml>

            """)
    }

    @Test func attributeValuesAreEscapedAndControlsRemoved() {
        let text = OPMLWriter.document(
            title: "Mine & <yours>",
            outlines: [OPMLOutline(title: "\"Tom\" & <Jerry>\u{1}\u{7F}\u{85}\tcafé ☺ 日本", feedURL: "https://example.com/?a=1&b=\"2\"")],
            created: Self.created)
        #expect(text.contains("<title>Mine &amp; &lt;yours&gt;</title>"))
        #expect(text.contains(#"text="&quot;Tom&quot; &amp; &lt;Jerry&gt; café ☺ 日本""#))
        #expect(text.contains(#"xmlUrl="https://example.com/?a=1&amp;b=&quot;2&quot;""#))
    }

    @Test func untitledSubscriptionIsShownByItsFeedURL() {
        let text = OPMLWriter.document(title: "t", outlines: [OPMLOutline(title: nil, feedURL: "https://example.com/feed")], created: Self.created)
        #expect(text.contains(#"<outline type="rss" text="https://example.com/feed" xmlUrl="https://example.com/feed"/>"#))
    }

    @Test func datesAreRFC822InGMT() {
        let epoch = OPMLWriter.document(title: "t", outlines: [], created: Date(timeIntervalSince1970: 0))
        #expect(epoch.contains("<dateCreated>Thu, 01 Jan 1970 00:00:00 GMT</dateCreated>"))
        let before = OPMLWriter.document(title: "t", outlines: [], created: Date(timeIntervalSince1970: -1))
        #expect(before.contains("<dateCreated>Wed, 31 Dec 1969 23:59:59 GMT</dateCreated>"))
        let leap = OPMLWriter.document(title: "t", outlines: [], created: Date(timeIntervalSince1970: 951_782_400))
        #expect(leap.contains("<dateCreated>Tue, 29 Feb 2000 00:00:00 GMT</dateCreated>"))
    }

    @Test func writtenDocumentReadsBackToTheSameOutlines() throws {
        let outlines = [
            OPMLOutline(title: "Example Radio", feedURL: "https://example.com/feed.xml", htmlURL: "https://example.com/"),
            OPMLOutline(title: "\"Quotes\" & <angles> 'apostrophes'", feedURL: "https://example.com/q?a=1&b=2"),
            OPMLOutline(title: "Café Científico — 日本語 ☺", feedURL: "http://example.org/cafe", htmlURL: "http://example.org/"),
            OPMLOutline(title: "https://example.net/untitled", feedURL: "https://example.net/untitled"),
        ]
        let text = OPMLWriter.document(title: "Round & trip", outlines: outlines, created: Self.created)
        let document = try OPMLReader.read(Array(text.utf8), documentURL: "file:///tmp/export.opml", source: "export.opml")
        #expect(document == OPMLDocument(outlines: outlines))
    }
}

/// Real OPML files from other projects' test suites (Tests/Fixtures/opml, provenance in
/// ORIGINS.tsv) and our own stand-ins for gPodder's and AntennaPod's exports (own/opml).
@Suite(.timeLimit(.minutes(5))) struct OPMLFixtureTests {
    /// What reading a fixture gives: how many feeds (and some of them), or where it is broken.
    enum Expectation: Sendable {
        case outlines(Int, skipped: Int = 0, duplicates: Int = 0, including: [OPMLOutline] = [])
        case broken(String)
    }

    static let expectations: [String: Expectation] = [
        "opml/podcast-archiver/feeds.opml": .outlines(23, including: [
            OPMLOutline(title: "Alternativlos", feedURL: "http://alternativlos.org/alternativlos.rss", htmlURL: "http://www.alternativlos.org/"),
            OPMLOutline(
                title: "Sanft & Sorgfältig | radioeins", feedURL: "http://www.radioeins.de/archiv/podcast/zwei_alte_hasen.feed.podcast.xml",
                htmlURL: "http://www.radioeins.de/archiv/podcast/zwei_alte_hasen.html"),
            OPMLOutline(
                title: "ZDF - \"Die Anstalt\"", feedURL: "http://www.zdf.de/ZDFmediathek/podcast/2085930?view=podcast",
                htmlURL: "http://www.zdf.de/ZDFmediathek/podcast/2085930?view=podcast"),
        ]),
        "opml/podcast-archiver/opml_downcast_valid.xml": .outlines(1, including: [
            OPMLOutline(title: "Lautsprecher", feedURL: "https://feeds.metaebene.me/lautsprecher/m4a"),
        ]),
        "opml/podcast-archiver/opml_pocketcasts_valid.xml": .outlines(1, including: [
            OPMLOutline(title: "Lautsprecher", feedURL: "https://feeds.metaebene.me/lautsprecher/m4a"),
        ]),
        "opml/listparser/outline_xmlUrl-miscapitalized.xml": .outlines(1, including: [
            OPMLOutline(title: "feedname", feedURL: "http://domain/feed"),
        ]),
        "opml/listparser/outline_type-pie.xml": .outlines(1, including: [OPMLOutline(title: "feedname", feedURL: "http://domain.com/feed")]),
        "opml/listparser/outline_type-link.xml": .outlines(1, including: [OPMLOutline(title: "feedname", feedURL: "http://domain.com/feed")]),
        "opml/listparser/outline-duplication-1.xml": .outlines(1, duplicates: 1),
        "opml/listparser/outline_title-text_empty.xml": .outlines(1, including: [OPMLOutline(title: "feedname", feedURL: "http://domain.com/feed")]),
        "opml/listparser/opml_version-1.xml": .outlines(0),
        "opml/listparser/categories/hier-4-mixed.xml": .outlines(1, including: [OPMLOutline(title: "feedname", feedURL: "http://domain/feed")]),
        "opml/listparser/categories/hier-5-title.xml": .outlines(1, including: [OPMLOutline(title: "feedname", feedURL: "http://domain/feed")]),
        "opml/listparser/opportunities/opml-htmlUrl.xml": .outlines(0),
        "opml/listparser/malformed/end-element-unexpected.xml":
            .broken("broken XML at line 13:14 (Opening and ending tag mismatch: body line 9 and unexpected)"),
        "opml/listparser/malformed/html-entity-attribute.xml": .broken("broken XML at line 11:46 (Entity 'aelig' not defined)"),
        "opml/node-opmlparser/outline.opml": .outlines(0),
        "opml/node-opmlparser/malformed.opml": .broken("broken XML at line 1:1 (Start tag expected, '<' not found)"),
        "opml/holllo-opml/valid_opml_with_everything.opml": .outlines(0, skipped: 2),
        "opml/holllo-opml/youtube.opml": .outlines(2, including: [
            OPMLOutline(title: "A YouTube Channel", feedURL: "https://www.youtube.com/feeds/videos.xml?channel_id=abcdefghijklmnopqrstuvwxyz1"),
        ]),
        "own/opml/gpodder-subscriptions.opml": .outlines(4, including: [
            OPMLOutline(title: "Café Científico", feedURL: "http://example.org/cafe/feed.rss"),
            OPMLOutline(title: "\"Quoted\" <Show>", feedURL: "https://podcasts.example.net/quoted?format=rss&size=all"),
            OPMLOutline(title: "日本語のポッドキャスト", feedURL: "https://example.jp/podcast/rss"),
        ]),
        "own/opml/antennapod-subscriptions.opml": .outlines(3, skipped: 1, including: [
            OPMLOutline(title: "An Atom Show", feedURL: "https://example.org/atom-show/feed.atom", htmlURL: "https://example.org/atom-show/"),
            OPMLOutline(title: "Members Only", feedURL: "https://user:secret@private.example.com/feed?token=abc&format=mp3"),
        ]),
    ]

    /// Every file under the OPML fixture folders, relative to the fixtures folder.
    static let files: [String] = ["opml", "own/opml"].flatMap { folder in
        let root = Fixtures.directory.appending(path: folder)
        let found = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath } ?? []
        return found.map { String($0.path.dropFirst(Fixtures.directory.path.count + 1)) }
    }.sorted()

    /// A count guard: a fixture added, moved or lost fails here instead of going unchecked.
    @Test func everyFixtureIsFoundAndExpected() {
        #expect(Self.files.count == 20)
        #expect(Set(Self.files) == Set(Self.expectations.keys))
    }

    @Test(arguments: files)
    func fixtureReadsAsExpected(_ path: String) throws {
        let expectation = try #require(Self.expectations[path], "no expectation for \(path)")
        let bytes = [UInt8](try Fixtures.data(path))
        let name = String(path.split(separator: "/").last ?? "")
        let outcome = Result { () throws(OPMLError) in
            try OPMLReader.read(bytes, documentURL: Fixtures.directory.appending(path: path).absoluteString, source: name)
        }
        switch (expectation, outcome) {
        case (.outlines(let count, let skipped, let duplicates, let including), .success(let document)):
            #expect(document.outlines.count == count)
            #expect(document.skipped.count == skipped)
            #expect(document.duplicates == duplicates)
            for outline in including {
                #expect(document.outlines.contains(outline), "\(outline) missing from \(document.outlines)")
            }
        case (.broken(let message), .failure(let error)):
            #expect(error.description == "OPML file \(name): \(message); fix the file or export it again")
        default:
            Issue.record("\(path): expected \(expectation), got \(outcome)")
        }
    }
}

/// What `export` writes, `import` reads back as it was (issue 32, item 5): a subscription's title
/// as it keeps it (`Subscription.keptTitle`) and its address as the store keeps it, for hostile
/// titles and addresses; an address with a control character is refused at import instead.
@Suite(.timeLimit(.minutes(1))) struct OPMLRoundTripTests {
    /// A reproducible generator (SplitMix64), so a failing case can be run again.
    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Characters that trouble XML, terminals and naive writers.
    private static let hostile: [Unicode.Scalar] = [
        "a", "Z", "0", " ", " ", "\t", "\n", "\r", "&", "<", ">", "\"", "'", "\u{0}", "\u{1}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9F}",
        "\u{A0}", "\u{200B}", "\u{202E}", "\u{2028}", "\u{3000}", "\u{FFFE}", "\u{FFFF}", "\u{FFFD}", "é", "\u{301}", "日", "🎙", "\u{1F3FB}",
    ]

    private static func text(_ generator: inout Generator, length: Int) -> String {
        var text = ""
        for _ in 0..<length { text.unicodeScalars.append(hostile.randomElement(using: &generator)!) }
        return text
    }

    /// `outlines` exported and read back.
    private static func roundTrip(_ outlines: [OPMLOutline]) throws -> OPMLDocument {
        let document = OPMLWriter.document(title: "podcast subscriptions", outlines: outlines, created: Date(timeIntervalSince1970: 0))
        return try OPMLReader.read(Array(document.utf8), documentURL: "file:///home/user/export.opml", source: "export.opml")
    }

    @Test func aKeptTitleIsCappedCleanAndStable() {
        #expect(Subscription.keptTitle("  Line one\nline\ttwo\u{1B}[31m\u{FFFE}  ") == "Line one line two[31m")
        #expect(Subscription.keptTitle(" \n\t\u{0} ") == nil)
        let long = Subscription.keptTitle(String(repeating: "日本語 ", count: 3_000_000))
        #expect(long.map { $0.utf8.count <= Subscription.maxTitleBytes && $0.utf8.count > Subscription.maxTitleBytes - 8 } == true)
        #expect(long?.hasPrefix("日本語 日本語") == true)
    }

    @Test func hostileTitlesComeBackAsKept() throws {
        var generator = Generator(state: 20_261_128)
        for round in 0..<200 {
            let raw = Self.text(&generator, length: Int.random(in: 0...(round.isMultiple(of: 20) ? 2_000 : 40), using: &generator))
            let title = Subscription.keptTitle(raw)
            #expect(title.flatMap(Subscription.keptTitle) == title, "not stable: \(raw.debugDescription)")
            let outline = OPMLOutline(title: title ?? "https://example.com/feed", feedURL: "https://example.com/\(round).xml")
            let read = try Self.roundTrip([outline])
            #expect(read.outlines == [outline], "\(raw.debugDescription)")
        }
    }

    @Test func hostileAddressesComeBackAsTheStoreKeepsThem() throws {
        var generator = Generator(state: 4711)
        let pieces = ["a", "Z", "-", "_", "~", ".", "%20", "%0A", "&", "'", "\"", "<", ">", " ", "é", "日", "(", ")", "*", "+", ",", ";", "=", ":", "@", "!", "$"]
        for round in 0..<300 {
            let path = (0..<Int.random(in: 1...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let query = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            // Addresses reach the store trimmed (`FeedSource` trims what is typed, OPML attributes are trimmed).
            let written = ("https://feeds.example.com/\(round)/\(path)" + (query.isEmpty ? "" : "?" + query)).trimmingWhitespace()
            let kept = FeedAddress.normalized(written)
            let read = try Self.roundTrip([OPMLOutline(title: "Show \(round)", feedURL: kept)])
            #expect(read.outlines.map { FeedAddress.normalized($0.feedURL) } == [kept], "\(written)")
            #expect(read.skipped.isEmpty && read.refused.isEmpty, "\(written)")
        }
    }

    @Test func anAddressWithALineBreakOrATabIsRefusedNotChanged() throws {
        let document = try readOPML(opml("""
            <outline type="rss" text="A" xmlUrl="https://example.com/a&#10;b.xml"/>
            <outline type="rss" text="B" xmlUrl="https://example.com/b&#9;.xml"/>
            <outline type="rss" text="C" xmlUrl="https://example.com/c.xml" htmlUrl="https://example.com/&#13;c"/>
            """))
        #expect(document.refused == ["https://example.com/a\nb.xml", "https://example.com/b\t.xml"])
        #expect(document.outlines == [OPMLOutline(title: "C", feedURL: "https://example.com/c.xml", htmlURL: nil)])
    }
}
