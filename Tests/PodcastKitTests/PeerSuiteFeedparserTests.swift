import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// feedparser's test suite (`feeds/feedparser/`): each file's `Expect:` line, a Python expression
/// over feedparser's result, evaluated against our feed wherever it concerns a field we output.
/// Other clauses are counted as not applicable, never failed.
@Suite(.timeLimit(.minutes(5))) struct PeerSuiteFeedparserTests {
    /// Where we deliberately answer differently from feedparser, by fixture and by the feedparser
    /// key the clause reads (`entries.0.title`, `feed.link`, …). Our bugs do not belong here.
    static let allowlist: [PeerDifference] = [
        PeerDifference("feeds/feedparser/wellformed/atom10/*base64*", "feed.title", Reason.base64),
        PeerDifference("feeds/feedparser/wellformed/atom10/*base64*", "feed.subtitle", Reason.base64),
        PeerDifference("feeds/feedparser/wellformed/atom10/*base64*", "entries.0.title", Reason.base64),
        PeerDifference("feeds/feedparser/wellformed/atom10/*base64*", "entries.0.summary", Reason.base64),
        PeerDifference("feeds/feedparser/wellformed/atom10/*base64*", "entries.0.content.0.value", Reason.base64),
        PeerDifference("feeds/feedparser/wellformed/atom10/entry_id_with_attributes.xml", "parse", Reason.unnamespacedFeed),
        PeerDifference("feeds/feedparser/wellformed/psc/atomsimplechapterexternal.xml", "parse", Reason.unnamespacedFeed),
        PeerDifference("feeds/feedparser/wellformed/atom10/feed_author_map_author.xml", "feed.author",
            "an Atom author is shown by name; feedparser appends the email"),
        PeerDifference("feeds/feedparser/wellformed/itunes/itunes_*_link_image.xml", "feed.image.href", Reason.oldITunesLink),
        PeerDifference("feeds/feedparser/wellformed/itunes/itunes_*_link_image.xml", "entries.0.image.href", Reason.oldITunesLink),
        PeerDifference("feeds/feedparser/wellformed/itunes/itunes_core_element_uppercase.xml", "feed.title",
            "XML names are case-sensitive: <TiTlE> is not <title>"),
        PeerDifference("feeds/feedparser/wellformed/itunes/itunes_item_block_true.xml", "entries.0.itunes_block", Reason.lenientITunes),
        PeerDifference("feeds/feedparser/wellformed/itunes/itunes_item_block_uppercase.xml", "entries.0.itunes_block", Reason.lenientITunes),
        PeerDifference("feeds/feedparser/wellformed/itunes/itunes_item_block_whitespace.xml", "entries.0.itunes_block", Reason.lenientITunes),
        PeerDifference("feeds/feedparser/wellformed/itunes/itunes_item_explicit_uppercase.xml", "entries.0.itunes_explicit", Reason.lenientITunes),
        PeerDifference("feeds/feedparser/wellformed/itunes/itunes_item_explicit_whitespace.xml", "entries.0.itunes_explicit", Reason.lenientITunes),
        PeerDifference("feeds/feedparser/wellformed/rss/entity_in_doctype.xml", "bozo", Reason.noEntities),
        PeerDifference("feeds/feedparser/wellformed/rss/entity_in_doctype.xml", "entries.0.guid", Reason.noEntities),
        PeerDifference("feeds/feedparser/wellformed/rss/item_description_not_a_doctype*.xml", "entries.0.description",
            "show notes are read as a browser reads HTML: '<!' opens a comment or doctype and hides the rest"),
        PeerDifference("feeds/feedparser/wellformed/rss/item_fullitem.xml", "entries.0.content.0.value",
            "we keep one description, preferring <description> to content:encoded; feedparser keeps both"),
        PeerDifference("feeds/feedparser/wellformed/rss/item_xhtml_body.xml", "entries.0.content.0.value",
            "an XHTML <body> inside an RSS item is not read"),
        PeerDifference("feeds/feedparser/wellformed/rss/item_summary_and_description.xml", "entries.0.summary",
            "an RSS <summary> (not an RSS element) is not read; we show <description>"),
        PeerDifference("feeds/feedparser/wellformed/rss/newlocation.xml", "feed.newlocation",
            "moves are read from itunes:new-feed-url; UserLand's <redirect><newLocation> is not"),
        PeerDifference("feeds/feedparser/wellformed/atom10/entry_link_no_href_link_priority.xml", "entries.0.link",
            "an Atom <link> without href is not read (feedparser takes its text)"),
        PeerDifference("feeds/feedparser/wellformed/atom10/entry_link_*.xml", "entries.1.link",
            "the two entries have no id, enclosure, title or date: one identity, so we list one"),
        PeerDifference("feeds/feedparser/encoding/bozo_linenoise.xml", "entries.0.summary",
            "bytes that are not UTF-8 are read as Windows-1252; feedparser re-decodes the whole text"),
        PeerDifference("feeds/feedparser/encoding/*double-encoded-html.xml", "entries.0.description",
            "we show the characters the references name ('â€¦'); feedparser guesses they were UTF-8 read as Latin-1"),
    ]

    enum Reason {
        static let base64 = "we do not decode base64 Atom text; podcasts never use it"
        static let unnamespacedFeed = "a <feed> root outside the Atom namespace is refused as not Atom; feedparser reads it as Atom"
        static let lenientITunes = "itunes:block and itunes:explicit are read in any case and spacing ('YES', ' yes ', 'true'); feedparser wants exact lowercase words"
        static let oldITunesLink = "the pre-2006 <itunes:link rel=\"image\"> is not read; itunes:image is"
        static let noEntities = "entities declared in the document's DTD are never expanded (entity-expansion attacks): their text is lost, with a warning"
    }

    static let folders = ["wellformed/itunes", "wellformed/psc", "wellformed/media-rss", "wellformed/rss", "wellformed/atom10", "encoding"]
    static let fixtures = folders.flatMap { PeerFixtures.files(in: "feeds/feedparser/" + $0, suffixes: [".xml", ".rdf", ".rss", ".atom"]) }

    /// A count guard: a missing or moved fixture folder fails here instead of running no case.
    @Test func everyFixtureIsFound() {
        #expect(Self.fixtures.count == 590)
    }

    @Test(arguments: fixtures)
    func expectationHolds(fixture: String) throws {
        let data = try Fixtures.data(fixture)
        let header = try #require(FeedparserCase(data), "\(fixture) has no Expect: line")
        var comparison = PeerComparison(fixture: fixture)
        defer { comparison.verify(allowlist: Self.allowlist) }
        let result: FeedParser.Result
        do {
            result = try parseFeed(data, url: PeerFixtures.feedURL, httpCharset: header.charset)
        } catch {
            // Refusing is allowed only where feedparser itself flags the document (or only checks
            // that reading it does not crash).
            if !header.allowsRefusal { comparison.mismatch("parse", "refused: \(error)") }
            return
        }
        let verdict = header.evaluate(on: result.feed)
        if verdict.requiresClean, !result.warnings.isEmpty {
            comparison.mismatch("bozo", "feedparser reads it cleanly; we warned: \(result.warnings.joined(separator: "; "))")
        }
        for failure in verdict.failures { comparison.mismatch(failure.key, failure.detail) }
    }

    /// How many cases of each folder check a field we output; printed for the record, and held
    /// above a floor so that a broken interpreter cannot quietly skip everything.
    @Test func applicableCasesPerFolder() throws {
        var lines: [String] = []
        for folder in Self.folders {
            let files = PeerFixtures.files(in: "feeds/feedparser/" + folder, suffixes: [".xml", ".rdf", ".rss", ".atom"])
            var applicable = 0
            for file in files {
                let header = try #require(FeedparserCase(Fixtures.data(file)), "\(file) has no Expect: line")
                if header.evaluate(on: Feed(url: PeerFixtures.feedURL)).checkedFields > 0 { applicable += 1 }
            }
            lines.append("\(folder): \(applicable) applicable, \(files.count - applicable) not applicable")
            #expect(files.isEmpty || applicable > 0, "\(folder): no case checks a field we output")
        }
        print("feedparser cases: " + lines.joined(separator: "; "))
    }
}

/// One feedparser case: the `Expect:` expression and the HTTP charset from `Header:`.
struct FeedparserCase {
    /// The parsed `Expect:` expression; nil when it uses Python beyond the interpreter's subset
    /// (then nothing in it is applicable).
    let expect: PythonExpression.Node?
    /// The raw expression text.
    let expectText: String
    /// The `charset` of the `Header: Content-type:` line, if any.
    let charset: String?

    /// Reads the header comment of a case file, whatever its encoding.
    init?(_ data: Data) {
        let text = Self.decode(data)
        guard let line = text.split(whereSeparator: \.isNewline).first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Expect:") }) else {
            return nil
        }
        expectText = line.trimmingCharacters(in: .whitespaces).dropFirst("Expect:".count).trimmingCharacters(in: .whitespaces)
        expect = PythonExpression.parse(expectText)
        let header = text.split(whereSeparator: \.isNewline).first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Header:") }
        charset = header.flatMap { Self.charset(in: String($0)) }
    }

    /// The document may be refused when feedparser flags it as ill-formed (`bozo`) or only
    /// checks that reading it does not crash (`1`).
    var allowsRefusal: Bool {
        clauses.contains { clause in
            if case .name("bozo") = clause { return true }
            if case .number(1) = clause { return true }
            return false
        }
    }

    /// The top-level clauses joined by `and`.
    var clauses: [PythonExpression.Node] {
        expect.map(Self.flatten) ?? []
    }

    private static func flatten(_ node: PythonExpression.Node) -> [PythonExpression.Node] {
        if case .and(let parts) = node { parts.flatMap(flatten) } else { [node] }
    }

    /// The outcome of the expression against `feed`.
    func evaluate(on feed: Feed) -> FeedparserVerdict {
        var verdict = FeedparserVerdict()
        let reader = FeedparserFields(feed: feed, checksEntryDescription: expectText.contains("['description']") || expectText.contains("['summary']"))
        for clause in clauses {
            switch clause {
            case .name("bozo"), .number(1): continue
            case .not(.name("bozo")): verdict.requiresClean = true
            default: reader.check(clause, into: &verdict)
            }
        }
        return verdict
    }

    private static func decode(_ data: Data) -> String {
        let head = Array(data.prefix(4))
        let encoding: String.Encoding? = switch head {
        case [0x00, 0x00, 0xFE, 0xFF], [0x00, 0x00, 0x00, 0x3C]: .utf32BigEndian
        case [0xFF, 0xFE, 0x00, 0x00], [0x3C, 0x00, 0x00, 0x00]: .utf32LittleEndian
        case _ where head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0x00, 0x3C]): .utf16BigEndian
        case _ where head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0x3C, 0x00]): .utf16LittleEndian
        default: nil
        }
        if let encoding, let text = String(data: data, encoding: encoding) { return text }
        return String(data: data, encoding: .utf8) ?? String(decoding: data.map { UInt16($0) }, as: UTF16.self)
    }

    private static func charset(in header: String) -> String? {
        guard let found = header.lowercased().range(of: "charset") else { return nil }
        let rest = header[found.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
        let value = rest.prefix { !" ;\"'".contains($0) }
        return value.isEmpty ? nil : String(value)
    }
}

/// What evaluating one case found.
struct FeedparserVerdict {
    /// `not bozo`: feedparser reads the document without complaint, so we must not warn.
    var requiresClean = false
    /// Clauses about fields we output that were checked.
    var checkedFields = 0
    /// Clauses that did not hold: the feedparser key and what differed.
    var failures: [(key: String, detail: String)] = []
}

/// Maps feedparser's result keys onto our feed, and checks clauses against it.
struct FeedparserFields {
    let feed: Feed
    /// Whether the expression also checks the entry's description, in which case `content` is
    /// feedparser's second text, which we do not keep.
    let checksEntryDescription: Bool

    /// Our value for a feedparser key, typed by how it compares.
    enum Ours {
        case text(String?), exact(String?), contains(String?), seconds(Int?), flag(Bool?), instant(Date?), number(Double?), count(Int)
        /// A text that should be one character, compared by its code point (`ord`).
        case ordinal(String?)
    }

    /// A Python literal from the expression.
    enum Literal {
        case string(String), number(Double), bool(Bool), none, tuple([Double]), timedelta(Double)
    }

    func check(_ clause: PythonExpression.Node, into verdict: inout FeedparserVerdict) {
        let key: String
        let holds: Bool
        let detail: String
        switch clause {
        case .compare(let left, let operation, let right):
            guard let (path, ours) = value(of: left), let literal = Self.literal(right),
                let equal = Self.equal(ours, literal) else { return }
            key = path
            let negated = operation == "!=" || operation == "is not"
            guard ["==", "!=", "is", "is not"].contains(operation) else { return }
            holds = equal != negated
            detail = "\(PythonExpression.describe(clause)): ours is \(Self.describe(ours))"
        case .not(let inner):
            guard let (path, ours) = value(of: inner), let truth = Self.truth(ours) else { return }
            key = path
            holds = !truth
            detail = "\(PythonExpression.describe(clause)): ours is \(Self.describe(ours))"
        default:
            guard let (path, ours) = value(of: clause), let truth = Self.truth(ours) else { return }
            key = path
            holds = truth
            detail = "\(PythonExpression.describe(clause)): ours is \(Self.describe(ours))"
        }
        verdict.checkedFields += 1
        if !holds { verdict.failures.append((key, detail)) }
    }

    /// The feedparser key an expression reads (`entries.0.title`) and our value for it, or nil when
    /// it is not something we output.
    func value(of node: PythonExpression.Node) -> (String, Ours)? {
        if case .call(.name(let function), let arguments) = node, arguments.count == 1, let (path, ours) = value(of: arguments[0]) {
            switch (function, ours) {
            case ("len", .count): return (path, ours)
            case ("ord", .text(let text)): return (path, .ordinal(text))
            default: return nil
            }
        }
        if case .call(.attribute(let target, "has_key"), let arguments) = node, arguments.count == 1,
            case .string(let member) = arguments[0], let segments = Self.path(target) {
            let path = (segments + [member]).joined(separator: ".")
            guard segments.count == 2, segments[0] == "entries", member == "link" else { return nil }
            return (path, .flag(episode(segments[1])?.link != nil))
        }
        guard let segments = Self.path(node), let root = segments.first else { return nil }
        let path = segments.joined(separator: ".")
        let keys = Array(segments.dropFirst())
        switch root {
        case "feed": return feedValue(keys).map { (path, $0) }
        case "entries":
            guard let index = keys.first else { return nil }
            return entryValue(episode(index), Array(keys.dropFirst())).map { (path, $0) }
        default: return nil
        }
    }

    private func episode(_ index: String) -> Episode? {
        guard let position = Int(index), feed.episodes.indices.contains(position) else { return nil }
        return feed.episodes[position]
    }

    private func feedValue(_ keys: [String]) -> Ours? {
        switch keys.joined(separator: ".") {
        case "title", "title_detail.value": .text(feed.title.isEmpty ? nil : feed.title)
        case "link": .exact(feed.link)
        case "subtitle", "subtitle_detail.value", "description", "tagline", "summary": .text(feed.description)
        case "author", "author_detail.name": .contains(feed.author)
        case "language": .exact(feed.language)
        case "image.href", "image.url", "logo", "icon": .exact(feed.image)
        case "newlocation": .exact(feed.newFeedURL)
        default: nil
        }
    }

    private func entryValue(_ episode: Episode?, _ keys: [String]) -> Ours? {
        let key = keys.joined(separator: ".")
        switch key {
        case "title", "title_detail.value": return .text(episode?.title)
        case "link": return .exact(episode?.link)
        case "id", "guid": return .exact(episode?.guid)
        case "description", "summary", "summary_detail.value": return .text(episode?.description)
        case "content.0.value": return checksEntryDescription ? nil : .text(episode?.description)
        case "enclosures.0.href", "enclosures.0.url", "media_content.0.url": return .exact(episode?.enclosure?.url)
        case "enclosures.0.length": return .exact(episode?.enclosure?.length.map(String.init))
        case "enclosures.0.type": return .exact(episode?.enclosure?.type)
        case "itunes_duration": return .seconds(episode?.duration)
        case "image.href", "media_thumbnail.0.url": return .exact(episode?.image)
        case "itunes_block": return .flag(episode?.isBlocked)
        case "itunes_explicit": return .flag(episode?.isExplicit)
        case "published_parsed", "updated_parsed": return .instant(episode?.published)
        case "psc_chapters.chapters": return .count(episode?.chapters.count ?? 0)
        default: break
        }
        guard keys.count == 4, keys[0] == "psc_chapters", keys[1] == "chapters", let index = Int(keys[2]) else { return nil }
        let chapter = episode.flatMap { $0.chapters.indices.contains(index) ? $0.chapters[index] : nil }
        switch keys[3] {
        case "title": return .exact(chapter?.title)
        case "href": return .exact(chapter?.link)
        case "start_parsed": return .number(chapter?.start)
        default: return nil
        }
    }

    /// `feed['a'][0].b` as `["feed", "a", "0", "b"]`.
    static func path(_ node: PythonExpression.Node) -> [String]? {
        switch node {
        case .name(let name): return [name]
        case .attribute(let target, let name): return path(target).map { $0 + [name] }
        case .subscript(let target, .string(let key)): return path(target).map { $0 + [key] }
        case .subscript(let target, .number(let index)): return path(target).map { $0 + [String(Int(index))] }
        default: return nil
        }
    }

    static func literal(_ node: PythonExpression.Node) -> Literal? {
        switch node {
        case .string(let text): return .string(text)
        case .number(let value): return .number(value)
        case .name("True"): return .bool(true)
        case .name("False"): return .bool(false)
        case .name("None"): return Literal.none
        case .tuple(let elements):
            let numbers = elements.compactMap { if case .number(let value) = $0 { value } else { nil } }
            return numbers.count == elements.count ? .tuple(numbers) : nil
        case .call(.attribute(.name("datetime"), "timedelta"), let arguments):
            let numbers = arguments.compactMap { if case .number(let value) = $0 { value } else { nil } }
            guard numbers.count == arguments.count else { return nil }
            let scales = [86_400.0, 1, 0.000_001]
            return .timedelta(zip(numbers, scales).map { $0 * $1 }.reduce(0, +))
        default: return nil
        }
    }

    /// Whether our value equals the literal; nil when the two cannot be compared.
    static func equal(_ ours: Ours, _ literal: Literal) -> Bool? {
        switch (ours, literal) {
        case (.text(let text), .string(let expected)):
            let squeezed = PeerText.squeezed(text ?? "")
            return squeezed == PeerText.squeezed(PeerText.plain(expected)) || squeezed == PeerText.squeezed(expected)
        case (.exact(let value), .string(let expected)): return value == (expected.isEmpty ? nil : expected)
        case (.exact(let value), .none), (.text(let value), .none), (.contains(let value), .none): return value == nil
        case (.contains(let value), .string(let expected)): return (value ?? "").contains(PeerText.plain(expected))
        case (.seconds(let value), .string(let expected)): return PeerValue.seconds(expected).map { $0 == value }
        case (.flag(let value), .bool(let expected)): return value == expected
        case (.flag(let value), .number(let expected)): return value == (expected != 0)
        case (.flag(let value), .none): return value == nil
        case (.instant(let value), .tuple(let fields)):
            guard fields.count >= 6 else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .gmt
            let parts = fields.prefix(6).map { Int($0) }
            let expected = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5]))
            return value == expected
        case (.number(let value), .timedelta(let expected)), (.number(let value), .number(let expected)):
            return value.map { abs($0 - expected) < 0.001 } ?? false
        case (.count(let count), .number(let expected)): return Double(count) == expected
        case (.ordinal(let text), .number(let expected)):
            return text.map { $0.unicodeScalars.count == 1 && Double($0.unicodeScalars.first?.value ?? 0) == expected } ?? false
        default: return nil
        }
    }

    static func truth(_ ours: Ours) -> Bool? {
        switch ours {
        case .count(let count): count > 0
        case .exact(let value), .text(let value), .contains(let value): value.map { !$0.isEmpty } ?? false
        case .flag(let value): value ?? false
        default: nil
        }
    }

    static func describe(_ ours: Ours) -> String {
        switch ours {
        case .text(let value), .exact(let value), .contains(let value), .ordinal(let value):
            value.map { "\"\(PeerText.collapsed($0).prefix(100))\"" } ?? "nil"
        case .seconds(let value): value.map(String.init) ?? "nil"
        case .flag(let value): value.map(String.init) ?? "nil"
        case .instant(let value): value.map { "\($0)" } ?? "nil"
        case .number(let value): value.map { "\($0)" } ?? "nil"
        case .count(let count): "\(count) items"
        }
    }
}

/// The subset of Python expressions feedparser's `Expect:` lines use: names, string, number and
/// tuple literals, subscripts, attributes, calls, `not`, `and` and comparisons.
enum PythonExpression {
    indirect enum Node: Equatable {
        case name(String)
        case string(String)
        case number(Double)
        case tuple([Node])
        case dictionary
        case `subscript`(Node, Node)
        case attribute(Node, String)
        case call(Node, [Node])
        case not(Node)
        case and([Node])
        case compare(Node, String, Node)
    }

    enum Token: Equatable {
        case name(String), string(String), number(Double), symbol(String)
    }

    /// The expression, or nil when it uses syntax outside the subset.
    static func parse(_ text: String) -> Node? {
        guard let tokens = tokenize(text) else { return nil }
        var parser = Parser(tokens: tokens)
        guard let node = parser.conjunction(), parser.position == tokens.count else { return nil }
        return node
    }

    /// The node written back roughly as Python, for messages.
    static func describe(_ node: Node) -> String {
        switch node {
        case .name(let name): name
        case .string(let text): "'\(text)'"
        case .number(let value): value == value.rounded() ? String(Int(value)) : String(value)
        case .tuple(let elements): "(" + elements.map(describe).joined(separator: ", ") + ")"
        case .dictionary: "{…}"
        case .subscript(let target, let index): describe(target) + "[" + describe(index) + "]"
        case .attribute(let target, let name): describe(target) + "." + name
        case .call(let function, let arguments): describe(function) + "(" + arguments.map(describe).joined(separator: ", ") + ")"
        case .not(let inner): "not " + describe(inner)
        case .and(let parts): parts.map(describe).joined(separator: " and ")
        case .compare(let left, let operation, let right): describe(left) + " \(operation) " + describe(right)
        }
    }

    private struct Parser {
        let tokens: [Token]
        var position = 0

        mutating func conjunction() -> Node? {
            guard var first = negation() else { return nil }
            var parts = [first]
            while peek == .name("and") {
                position += 1
                guard let next = negation() else { return nil }
                parts.append(next)
                first = next
            }
            if peek == .name("or") { return nil }
            return parts.count == 1 ? parts[0] : .and(parts)
        }

        mutating func negation() -> Node? {
            if peek == .name("not") {
                position += 1
                return negation().map(Node.not)
            }
            return comparison()
        }

        mutating func comparison() -> Node? {
            guard let left = primary() else { return nil }
            let operation: String
            switch peek {
            case .symbol("=="), .symbol("!="), .symbol("<"), .symbol(">"):
                guard case .symbol(let symbol) = peek else { return nil }
                operation = symbol
                position += 1
            case .name("is"):
                position += 1
                if peek == .name("not") { position += 1; operation = "is not" } else { operation = "is" }
            case .name("in"):
                position += 1
                operation = "in"
            case .name("not") where position + 1 < tokens.count && tokens[position + 1] == .name("in"):
                position += 2
                operation = "not in"
            default:
                return left
            }
            guard let right = primary() else { return nil }
            // A chain `a == b == 'x'` means every operand equals the last.
            var operands = [left, right]
            while operation == "==", peek == .symbol("==") {
                position += 1
                guard let next = primary() else { return nil }
                operands.append(next)
            }
            guard operands.count > 2, let last = operands.last else { return .compare(left, operation, right) }
            return .and(operands.dropLast().map { .compare($0, "==", last) })
        }

        mutating func primary() -> Node? {
            guard var node = atom() else { return nil }
            while true {
                switch peek {
                case .symbol("["):
                    position += 1
                    guard let index = conjunction(), take(.symbol("]")) else { return nil }
                    node = .subscript(node, index)
                case .symbol("."):
                    position += 1
                    guard case .name(let name) = peek else { return nil }
                    position += 1
                    node = .attribute(node, name)
                case .symbol("("):
                    position += 1
                    guard let arguments = list(until: ")") else { return nil }
                    node = .call(node, arguments)
                default:
                    return node
                }
            }
        }

        mutating func atom() -> Node? {
            guard let token = peek else { return nil }
            position += 1
            switch token {
            case .name(let name): return .name(name)
            case .number(let value): return .number(value)
            case .string(var text):
                while case .string(let more) = peek {
                    text += more
                    position += 1
                }
                return .string(text)
            case .symbol("-"):
                guard case .number(let value) = peek else { return nil }
                position += 1
                return .number(-value)
            case .symbol("("):
                guard let elements = list(until: ")") else { return nil }
                return elements.count == 1 && tokens[position - 2] != .symbol(",") ? elements[0] : .tuple(elements)
            case .symbol("["):
                return list(until: "]").map(Node.tuple)
            case .symbol("{"):
                var depth = 1
                while depth > 0, let next = peek {
                    position += 1
                    if next == .symbol("{") { depth += 1 }
                    if next == .symbol("}") { depth -= 1 }
                }
                return depth == 0 ? .dictionary : nil
            default:
                return nil
            }
        }

        /// Comma-separated expressions up to the closing `symbol`, which is consumed.
        mutating func list(until symbol: String) -> [Node]? {
            var elements: [Node] = []
            while peek != .symbol(symbol) {
                guard let element = conjunction() else { return nil }
                elements.append(element)
                if peek == .symbol(",") { position += 1 } else { break }
            }
            return take(.symbol(symbol)) ? elements : nil
        }

        var peek: Token? { position < tokens.count ? tokens[position] : nil }

        mutating func take(_ token: Token) -> Bool {
            guard peek == token else { return false }
            position += 1
            return true
        }
    }

    private static func tokenize(_ text: String) -> [Token]? {
        let characters = Array(text.unicodeScalars)
        var tokens: [Token] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.properties.isWhitespace {
                index += 1
            } else if let (string, end) = stringLiteral(characters, at: index) {
                tokens.append(.string(string))
                index = end
            } else if character.properties.isAlphabetic || character == "_" {
                var end = index
                while end < characters.count, characters[end].properties.isAlphabetic || characters[end] == "_"
                    || ("0"..."9").contains(characters[end]) { end += 1 }
                tokens.append(.name(String(String.UnicodeScalarView(characters[index..<end]))))
                index = end
            } else if ("0"..."9").contains(character) {
                var end = index
                while end < characters.count, ("0"..."9").contains(characters[end]) || characters[end] == "." { end += 1 }
                guard let value = Double(String(String.UnicodeScalarView(characters[index..<end]))) else { return nil }
                tokens.append(.number(value))
                index = end
            } else if index + 1 < characters.count, ["==", "!=", "<=", ">="].contains(String(character) + String(characters[index + 1])) {
                tokens.append(.symbol(String(character) + String(characters[index + 1])))
                index += 2
            } else if "[](){}.,:-<>".unicodeScalars.contains(character) {
                tokens.append(.symbol(String(character)))
                index += 1
            } else {
                return nil
            }
        }
        return tokens
    }

    /// A string literal (optionally prefixed `u`, `r` or `b`, single, double or triple quoted)
    /// starting at `start`, and the index after it.
    private static func stringLiteral(_ characters: [Unicode.Scalar], at start: Int) -> (String, Int)? {
        var index = start
        var raw = false
        while index < characters.count, "uUrRbB".unicodeScalars.contains(characters[index]), index - start < 2 {
            if characters[index] == "r" || characters[index] == "R" { raw = true }
            index += 1
        }
        guard index < characters.count, characters[index] == "'" || characters[index] == "\"" else { return nil }
        let quote = characters[index]
        let triple = index + 2 < characters.count && characters[index + 1] == quote && characters[index + 2] == quote
        index += triple ? 3 : 1
        var scalars: [Unicode.Scalar] = []
        while index < characters.count {
            let character = characters[index]
            if character == quote && (!triple || (index + 2 < characters.count && characters[index + 1] == quote && characters[index + 2] == quote)) {
                return (String(String.UnicodeScalarView(scalars)), index + (triple ? 3 : 1))
            }
            if character == "\\", !raw, index + 1 < characters.count {
                let (decoded, length) = escape(characters, at: index + 1)
                scalars.append(contentsOf: decoded)
                index += 1 + length
                continue
            }
            scalars.append(character)
            index += 1
        }
        return nil
    }

    /// The character(s) an escape after a backslash stands for, and how many characters it takes.
    private static func escape(_ characters: [Unicode.Scalar], at index: Int) -> ([Unicode.Scalar], Int) {
        func hex(_ count: Int) -> ([Unicode.Scalar], Int) {
            guard index + count < characters.count else { return ([characters[index]], 1) }
            let digits = String(String.UnicodeScalarView(characters[(index + 1)...(index + count)]))
            guard let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else { return ([characters[index]], 1) }
            return ([scalar], count + 1)
        }
        switch characters[index] {
        case "n": return (["\n"], 1)
        case "t": return (["\t"], 1)
        case "r": return (["\r"], 1)
        case "x": return hex(2)
        case "u": return hex(4)
        case "U": return hex(8)
        case "0"..."7":
            var end = index
            while end < characters.count, end - index < 3, ("0"..."7").contains(characters[end]) { end += 1 }
            let value = UInt32(String(String.UnicodeScalarView(characters[index..<end])), radix: 8) ?? 0
            return ([Unicode.Scalar(value) ?? "\u{FFFD}"], end - index)
        default: return ([characters[index]], 1)
        }
    }
}
