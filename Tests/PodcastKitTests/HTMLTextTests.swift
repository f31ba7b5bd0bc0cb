import PodcastKit
import PodcastText
import Testing

@Suite(.timeLimit(.minutes(5))) struct HTMLTextTests {
    @Test(arguments: [
        // Tags and block structure.
        ("<p>Hello <b>world</b></p>", "Hello world"),
        ("<p>One</p><p>Two</p>", "One\n\nTwo"),
        ("<p>One</p>\n\n\n<p>Two</p>", "One\n\nTwo"),
        ("line one<br>line two<br/>line three<BR />end", "line one\nline two\nline three\nend"),
        ("line one<br />\nline two", "line one\nline two"),
        ("a<br><br><br><br>b", "a\n\nb"),
        ("<div>one</div><div>two</div>", "one\ntwo"),
        ("<h2>Title</h2>Body", "Title\n\nBody"),
        ("<ul>\n  <li>First</li>\n  <li> Second </li>\n</ul>", "• First\n• Second"),
        ("Intro<ol><li>a</li><li>b</li></ol>Outro", "Intro\n• a\n• b\nOutro"),
        ("<p>Intro</p><ul><li><p>First</p></li>\n<li>\n<p>Second</p>\n</li></ul><p>End</p>",
         "Intro\n\n• First\n• Second\n\nEnd"),
        ("<ul><li>a<ul><li>nested</li></ul></li><li></li></ul>", "• a\n• nested\n•"),
        ("<table><tr><td>a</td><td>b</td></tr></table>", "a b"),
        ("<a href=\"https://example.com/?a=1&amp;b=2\" title=\"x > y\">link</a> text", "link (https://example.com/?a=1&b=2) text"),
        ("<img src='x.png' alt='a>b'>after", "after"),
        ("<o:p></o:p>Word text<o:p>&nbsp;</o:p>", "Word text"),
        // Script, style, comments, CDATA.
        ("<script>var a = '<p>'; if (a < b) {}</script>Shown", "Shown"),
        ("<STYLE type=\"text/css\">p { color: red }</STYLE>Shown", "Shown"),
        ("Before<!-- <p>hidden</p> -->After", "BeforeAfter"),
        ("<![CDATA[Tom & Jerry <3]]> show", "Tom & Jerry <3 show"),
        ("<!DOCTYPE html><html><body>Body</body></html>", "Body"),
        // Character references.
        ("It&#8217;s &#x2019;quoted&#X2019;", "It’s ’quoted’"),
        ("&lt;p&gt; is a tag &amp; &quot;so&quot; &apos;it&apos; is", "<p> is a tag & \"so\" 'it' is"),
        ("caf&eacute; &euro;5 &trade; &hellip; &mdash; &rarr; &alpha;&Omega; &le;", "café €5 ™ … — → αΩ ≤"),
        ("a&nbsp;b&nbsp;&nbsp;c", "a b c"),
        ("&#0;&#xD800;&#1114112;&#99999999999999999999;", "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
        ("&#146;&#150;", "’–"),
        ("&#65", "A"),
        ("AT&T &foo; & &; &# &#x; &amp", "AT&T &foo; & &; &# &#x; &amp"),
        ("&lt;script&gt;not code&lt;/script&gt;", "<script>not code</script>"),
        // Literal angle brackets that open no tag.
        ("1 < 2 and 3 > 2 <3", "1 < 2 and 3 > 2 <3"),
        ("Mail <me@example.com> or see <https://example.com/a>", "Mail <me@example.com> or see <https://example.com/a>"),
        ("x <b and no closing", "x <b and no closing"),
        // White space.
        ("  <p>  lots   of\t\tspace  </p>  ", "lots of space"),
        ("Plain text\r\nwith CRLF &amp; more\r\n\r\n\r\nlines", "Plain text\nwith CRLF & more\n\nlines"),
        ("<p>\n  indented\n  lines\n</p>", "indented\nlines"),
        ("", ""),
        ("<p></p><br>", ""),
    ])
    func convertsToPlainText(_ html: String, _ expected: String) {
        #expect(HTMLText.plainText(html) == expected)
    }

    @Test(arguments: [
        ("See <a href=\"https://example.com/notes\">the notes</a>.", "See the notes (https://example.com/notes)."),
        ("<A HREF=https://example.com/x>unquoted</A> after", "unquoted (https://example.com/x) after"),
        ("<a class='x' href = 'https://example.com/y' >spaced</a>", "spaced (https://example.com/y)"),
        // Text that already reads as the address shows it once.
        ("<a href=\"https://example.com/\">https://example.com/</a>", "https://example.com/"),
        ("<a href=\"https://www.example.com/a/\">example.com/a</a>", "example.com/a"),
        ("<a href=\"mailto:host@example.com\">host@example.com</a>", "host@example.com"),
        ("<a href=\"mailto:host@example.com\">write to us</a>", "write to us (mailto:host@example.com)"),
        // Nothing a reader could follow from a terminal, or nothing to attach it to.
        ("<a href=\"/relative\">relative</a> <a href=\"#top\">top</a> <a href=\"javascript:x()\">js</a>", "relative top js"),
        ("<a href=\"https://example.com/art\"><img src=\"a.png\"></a>Text", "Text"),
        ("<a name=\"anchor\">no href</a>", "no href"),
        // The address stays on its text's line, before the break the block asks for.
        ("<p><a href=\"https://example.com/1\">One</a></p><p>Two</p>", "One (https://example.com/1)\n\nTwo"),
        ("<a href=\"https://example.com/1\">one </a>two", "one (https://example.com/1) two"),
        // An unclosed link ends at the next one, or at the end.
        ("<a href=\"https://example.com/1\">one <a href=\"https://example.com/2\">two", "one (https://example.com/1) two (https://example.com/2)"),
    ])
    func linksKeepTheirAddressAfterTheirText(_ html: String, _ expected: String) {
        #expect(HTMLText.plainText(html) == expected)
    }

    @Test func titlesKeepOnlyTheTextOfALink() {
        #expect(HTMLText.plainText("<a href=\"https://example.com/\">Episode 1</a>", links: false) == "Episode 1")
    }

    @Test func aLinkTargetIsAddedOnlyWhenItSaysSomethingTheTextDoesNot() {
        #expect(HTMLText.linkTarget(href: "https://example.com/a", text: "A") == "https://example.com/a")
        #expect(HTMLText.linkTarget(href: "HTTP://Example.com/A/", text: " example.com/a ") == nil)
        #expect(HTMLText.linkTarget(href: "https://example.com/a", text: "  ") == nil)
        #expect(HTMLText.linkTarget(href: "ftp://example.com/a", text: "A") == nil)
        #expect(HTMLText.linkTarget(href: "https://example.com/a b", text: "A") == nil)
    }

    @Test func textWithoutMarkupIsOnlyTrimmed() {
        let text = "  Plain  text\n\n\n\twith   its own\tspacing  "
        #expect(HTMLText.plainText(text) == "Plain  text\n\n\n\twith   its own\tspacing")
    }

    @Test func unterminatedCommentDropsTheRest() {
        #expect(HTMLText.plainText("Kept <!-- never closed <p>gone</p>") == "Kept")
    }

    @Test func unterminatedScriptDropsTheRest() {
        #expect(HTMLText.plainText("Kept<script>while (true) {}") == "Kept")
    }

    /// A megabyte or so of markup built to make a careless scanner go quadratic or run off the end.
    struct HostileInput: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let html: String

        init(after head: String = "", _ unit: String, repeated count: Int, then tail: String = "") {
            testDescription = "\"\(head)\" + \"\(unit)\" × \(count) + \"\(tail)\""
            html = head + String(repeating: unit, count: count) + tail
        }

        static let all: [HostileInput] = [
            HostileInput("<", repeated: 1 << 20),
            HostileInput("<a ", repeated: 1 << 18),
            HostileInput("<a x=\"", repeated: 1 << 17),
            HostileInput("<a x='>", repeated: 1 << 17),
            HostileInput("<!--", repeated: 1 << 18),
            HostileInput(after: "<!--", "-", repeated: 1 << 20),
            HostileInput("<![CDATA[", repeated: 1 << 17),
            HostileInput("<!", repeated: 1 << 19),
            HostileInput("&#", repeated: 1 << 19),
            HostileInput("&amp", repeated: 1 << 18),
            HostileInput("&abcdefghijklmnopqrstuvwxyzabcdefgh", repeated: 1 << 15),
            HostileInput(after: "&#x", "f", repeated: 1 << 20, then: ";"),
            HostileInput(after: "&#", "9", repeated: 1 << 20),
            HostileInput("<br>", repeated: 1 << 18),
            HostileInput("<script>", repeated: 1 << 17),
            HostileInput("</script", repeated: 1 << 17),
            HostileInput("<li>", repeated: 1 << 18),
            HostileInput("\u{A0}\r\n\t", repeated: 1 << 18, then: "&amp;"),
        ]
    }

    @Test(arguments: HostileInput.all)
    func hostileInputFinishesWithSaneOutput(_ input: HostileInput) {
        let text = HTMLText.plainText(input.html)
        #expect(text.utf8.count <= input.html.utf8.count * 2)
        #expect(!text.contains("\n\n\n"))
        #expect(text == text.trimmingWhitespace())
    }

    @Test func namedEntitiesCoverLatin1SymbolsAndSpecials() {
        #expect(HTMLEntities.character(named: "nbsp") == "\u{A0}")
        #expect(HTMLEntities.character(named: "yuml") == "ÿ")
        #expect(HTMLEntities.character(named: "Yuml") == "Ÿ")
        #expect(HTMLEntities.character(named: "thetasym") == "ϑ")
        #expect(HTMLEntities.character(named: "hearts") == "♥")
        #expect(HTMLEntities.character(named: "rsquo") == "’")
        #expect(HTMLEntities.character(named: "apos") == "'")
        #expect(HTMLEntities.character(named: "euro") == "€")
    }

    @Test func unknownOrMiscasedEntityNamesAreNil() {
        #expect(HTMLEntities.character(named: "foo") == nil)
        #expect(HTMLEntities.character(named: "NBSP") == nil)
        #expect(HTMLEntities.character(named: "&nbsp;") == nil)
        #expect(HTMLEntities.character(named: "") == nil)
    }
}

/// The byte table the converter copies text runs with: every character past ASCII is written as
/// it is but U+0080–U+00A0, the C1 controls and the no-break space, which read as a space.
@Suite(.timeLimit(.minutes(5))) struct HTMLTextCharacterTests {
    @Test func everyCharacterPastASCIIIsKeptOrReadAsASpace() {
        var wrong: [UInt32] = []
        for value in 0x80...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "<p>a" + String(scalar) + "b</p>"
            let expected = value <= 0xA0 ? "a b" : "a" + String(scalar) + "b"
            if HTMLText.plainText(text) != expected { wrong.append(scalar.value) }
        }
        #expect(wrong.isEmpty, "wrong: \(wrong.prefix(10).map { String($0, radix: 16) })")
    }

    @Test func nonASCIITextRunsAreCopiedWithTheirSpacing() {
        #expect(HTMLText.plainText("<p>東京  ニュース&nbsp;経済</p>\n<p>Größe — „été“</p>") == "東京 ニュース 経済\n\nGröße — „été“")
    }
}
