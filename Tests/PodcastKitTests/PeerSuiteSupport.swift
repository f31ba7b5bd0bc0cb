import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

// Shared by the peer suites: other feed parsers' test fixtures, run through our parser and compared
// with the answers those parsers give.

/// The fixture files of a peer suite, listed at run time so that each file is one test case.
enum PeerFixtures {
    /// The base URL feeds are read from; relative links resolve against it.
    static let feedURL = "https://example.com/feed.xml"

    /// Paths (relative to the fixtures folder) of the files directly in `folder` whose names end in
    /// one of `suffixes`, sorted.
    static func files(in folder: String, suffixes: [String]) -> [String] {
        let directory = Fixtures.directory.appending(path: folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { name in suffixes.contains { name.hasSuffix($0) } }.sorted().map { folder + "/" + $0 }
    }

    /// `path` with its extension replaced by `newExtension`.
    static func sibling(of path: String, extension newExtension: String) -> String {
        let stem = path.lastIndex(of: ".").map { String(path[..<$0]) } ?? path
        return stem + "." + newExtension
    }
}

/// A JSON value from a peer's expected output.
indirect enum PeerJSON: Sendable, Equatable {
    case string(String), number(Double), bool(Bool), array([PeerJSON]), object([String: PeerJSON]), null

    /// Parses `data` (UTF-8 JSON).
    init(data: Data) throws {
        self.init(any: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    private init(any: Any) {
        switch any {
        case let string as String: self = .string(string)
        case let array as [Any]: self = .array(array.map(PeerJSON.init(any:)))
        case let object as [String: Any]: self = .object(object.mapValues(PeerJSON.init(any:)))
        case let number as NSNumber: self = .number(number.doubleValue)
        default: self = .null
        }
    }

    /// The member `key` of an object.
    subscript(key: String) -> PeerJSON? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The element at `index` of an array.
    subscript(index: Int) -> PeerJSON? {
        if case .array(let elements) = self, elements.indices.contains(index) { elements[index] } else { nil }
    }

    /// A string, or a number written as an integer when it is one; nil for anything else or empty.
    var string: String? {
        switch self {
        case .string(let text): text.isEmpty ? nil : text
        case .number(let value): value == value.rounded() ? String(Int64(value)) : String(value)
        default: nil
        }
    }

    /// The elements of an array (empty for anything else).
    var elements: [PeerJSON] {
        if case .array(let elements) = self { elements } else { [] }
    }
}

extension Optional where Wrapped == PeerJSON {
    /// Chained member access through a missing value.
    subscript(key: String) -> PeerJSON? { self?[key] }
    /// Chained element access through a missing value.
    subscript(index: Int) -> PeerJSON? { self?[index] }
    /// The string of the value, if any.
    var string: String? { self?.string }
    /// The elements of the value when it is an array.
    var elements: [PeerJSON] { self?.elements ?? [] }
}

/// How texts are compared: peers keep HTML, we keep plain text.
enum PeerText {
    /// `html` as plain text, independently of our own `HTMLText`: tags dropped, the common
    /// character references decoded.
    static func plain(_ html: String) -> String {
        var output = ""
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            let next = html.index(after: index)
            if character == "<", next < html.endIndex, html[next].isLetter || html[next] == "/" || html[next] == "!",
                let close = html[next...].firstIndex(of: ">") {
                output.append(" ")
                index = html.index(after: close)
            } else if character == "&", let semicolon = html[next...].prefix(12).firstIndex(of: ";"),
                let decoded = reference(String(html[next..<semicolon])) {
                output.append(decoded)
                index = html.index(after: semicolon)
            } else {
                output.append(character)
                index = next
            }
        }
        return output
    }

    /// Text without any white space, for comparing what was read regardless of where line breaks
    /// fell (tag boundaries become line breaks in ours and nothing in theirs).
    static func squeezed(_ text: String) -> String {
        String(text.unicodeScalars.filter { !$0.properties.isWhitespace && $0 != "\u{A0}" }.map(Character.init))
    }

    /// One line: white space runs collapsed to one space, trimmed.
    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "hellip": "…",
        "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "mdash": "—", "ndash": "–", "copy": "©",
    ]

    private static func reference(_ name: String) -> String? {
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        if name.hasPrefix("#") {
            return UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        return named[name]
    }
}

/// Peers' date and duration answers, read independently of our own parsers.
enum PeerValue {
    /// An RFC 3339 / ISO 8601 instant (`2006-01-02T15:04:05Z`, with or without fractional seconds
    /// or an offset).
    static func instant(_ text: String) -> Date? {
        let plain = Date.ISO8601FormatStyle()
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return (try? plain.parse(text)) ?? (try? fractional.parse(text))
    }

    /// `[[H:]M:]S` as seconds, or nil for anything else.
    static func seconds(_ text: String) -> Int? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0
        for part in parts {
            guard let value = Int(part), value >= 0 else { return nil }
            total = total * 60 + value
        }
        return total
    }

    /// A positive byte count as we keep it (nil for zero or nonsense).
    static func length(_ text: String?) -> String? {
        guard let text, let value = Int64(text.trimmingCharacters(in: .whitespaces)), value > 0 else { return nil }
        return String(value)
    }
}

/// A field where we deliberately give a different answer than a peer, and why.
struct PeerDifference: Sendable {
    /// The fixture path, or a pattern where `*` stands for any run of characters.
    var fixture: String
    /// The field as `PeerComparison` names it (`feed.link`, `item.title`, …).
    var field: String
    /// Why we differ, in one line.
    var reason: String

    init(_ fixture: String, _ field: String, _ reason: String) {
        self.fixture = fixture
        self.field = field
        self.reason = reason
    }

    /// Whether the entry is about `path`; each `*` in `fixture` stands for any run of characters.
    func covers(fixture path: String) -> Bool {
        var rest = Substring(path)
        let pieces = fixture.split(separator: "*", omittingEmptySubsequences: false)
        for (index, piece) in pieces.enumerated() {
            if index == 0 {
                guard rest.hasPrefix(piece) else { return false }
                rest = rest.dropFirst(piece.count)
            } else if index == pieces.count - 1 {
                return rest.hasSuffix(piece)
            } else {
                guard let found = rest.firstRange(of: piece) else { return false }
                rest = rest[found.upperBound...]
            }
        }
        return rest.isEmpty
    }
}

/// The fields of one fixture compared with a peer's answer; differences are reported at the end,
/// less those the allowlist explains.
struct PeerComparison {
    /// The fixture being compared.
    let fixture: String
    /// How many values were compared.
    private(set) var compared = 0
    private var mismatches: [(field: String, detail: String)] = []

    init(fixture: String) {
        self.fixture = fixture
    }

    /// Reads `data` as a feed; a refusal is recorded as a difference in the field `parse`.
    mutating func parse(_ data: Data, httpCharset: String? = nil) -> FeedParser.Result? {
        do {
            return try parseFeed(data, url: PeerFixtures.feedURL, httpCharset: httpCharset)
        } catch {
            mismatch("parse", "refused: \(error)")
            return nil
        }
    }

    /// Compares `ours` with `theirs` exactly; nothing is compared when the peer has no answer.
    mutating func same(_ field: String, _ ours: String?, _ theirs: String?) {
        // Peers keep white space around values (a link on its own line); we trim it.
        guard let theirs = theirs?.trimmingCharacters(in: .whitespacesAndNewlines) else { return }
        compared += 1
        if ours != theirs { mismatch(field, "expected \(quoted(theirs)), got \(quoted(ours))") }
    }

    /// Compares our plain text with the peer's text or HTML (tags dropped, references decoded, white
    /// space ignored).
    mutating func text(_ field: String, _ ours: String?, _ theirs: String?) {
        guard let theirs else { return }
        compared += 1
        // Peers keep markup as written; we keep either the text as written (titles) or plain text.
        let squeezed = PeerText.squeezed(ours ?? "")
        if squeezed != PeerText.squeezed(PeerText.plain(theirs)) && squeezed != PeerText.squeezed(theirs) {
            mismatch(field, "expected \(quoted(PeerText.collapsed(PeerText.plain(theirs)))), got \(quoted(ours.map(PeerText.collapsed)))")
        }
    }

    /// Compares our date with the peer's RFC 3339 instant.
    mutating func instant(_ field: String, _ ours: Date?, _ theirs: String?) {
        guard let theirs else { return }
        compared += 1
        guard let expected = PeerValue.instant(theirs) else {
            mismatch(field, "the peer's date \(quoted(theirs)) is not RFC 3339")
            return
        }
        // We keep whole seconds; some peers keep the milliseconds a feed gives.
        if ours.map({ $0.timeIntervalSince1970.rounded(.down) == expected.timeIntervalSince1970.rounded(.down) }) != true {
            mismatch(field, "expected \(expected), got \(ours.map { "\($0)" } ?? "nil")")
        }
    }

    /// Compares `ours` with `theirs` exactly; when the peer has no answer, we must have none either.
    mutating func sameOrAbsent(_ field: String, _ ours: String?, _ theirs: String?) {
        if theirs == nil { absent(field, ours) } else { same(field, ours, theirs) }
    }

    /// Compares a value the peer has no answer for but we must not invent either.
    mutating func absent(_ field: String, _ ours: String?) {
        compared += 1
        if let ours { mismatch(field, "expected nothing, got \(quoted(ours))") }
    }

    /// Records a difference found by the caller.
    mutating func mismatch(_ field: String, _ detail: String) {
        mismatches.append((field, detail))
    }

    /// Records an issue for each difference the allowlist does not explain, and for each exact
    /// allowlist entry for this fixture that no longer matches a difference. Differences in
    /// `knownBugs` (our bugs, in code these suites do not own) are recorded as known issues, so
    /// the test fails once they are fixed and the entry is left behind.
    func verify(allowlist: [PeerDifference], knownBugs: [PeerDifference] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        var unexplained: [String] = []
        for (field, detail) in mismatches where !allowlist.contains(where: { $0.covers(fixture: fixture) && $0.field == field }) {
            if let bug = knownBugs.first(where: { $0.covers(fixture: fixture) && $0.field == field }) {
                withKnownIssue(Comment(rawValue: bug.reason)) { Issue.record("\(fixture): \(field): \(detail)", sourceLocation: sourceLocation) }
            } else {
                unexplained.append("\(field): \(detail)")
            }
        }
        let bugsFound = Set(mismatches.map(\.field))
        for bug in knownBugs where bug.covers(fixture: fixture) && !bugsFound.contains(bug.field) {
            Issue.record("\(fixture): known bug in \(bug.field) no longer shows; remove its entry", sourceLocation: sourceLocation)
        }
        if !unexplained.isEmpty {
            let shown = unexplained.prefix(8).joined(separator: "\n  ")
            let more = unexplained.count > 8 ? "\n  … and \(unexplained.count - 8) more" : ""
            Issue.record("\(fixture):\n  \(shown)\(more)", sourceLocation: sourceLocation)
        }
        let found = Set(mismatches.map(\.field))
        for entry in allowlist where entry.fixture == fixture && !found.contains(entry.field) {
            Issue.record("\(fixture): allowlist entry for \(entry.field) no longer needed", sourceLocation: sourceLocation)
        }
    }

    private func quoted(_ text: String?) -> String {
        guard let text else { return "nil" }
        let line = text.count > 120 ? String(text.prefix(120)) + "…" : text
        return "\"" + line + "\""
    }
}

/// Pairs a peer's items (document order) with our episodes (newest first): by guid, else link,
/// else title.
enum PeerItems {
    /// For each peer item, the episode it matches, or nil.
    static func match(_ theirs: [PeerJSON], _ ours: [Episode], guid: (PeerJSON) -> String?, link: (PeerJSON) -> String?,
        title: (PeerJSON) -> String?) -> [Episode?] {
        var unused = Array(ours.indices)
        return theirs.map { item in
            var found: Int?
            if let key = guid(item) { found = unused.firstIndex { ours[$0].guid == key } }
            if found == nil, let key = link(item) {
                found = unused.firstIndex { ours[$0].link == key }
                    ?? unused.firstIndex { ours[$0].link.map(PeerItems.path) == PeerItems.path(key) }
            }
            if found == nil, let key = title(item) {
                found = unused.firstIndex { PeerText.squeezed(ours[$0].title) == PeerText.squeezed(PeerText.plain(key)) }
            }
            // Nothing matched but both sides list as many items: the next unpaired episode, so that
            // the field comparisons say what differs.
            if found == nil, theirs.count == ours.count, !unused.isEmpty { found = 0 }
            guard let found else { return nil }
            return ours[unused.remove(at: found)]
        }
    }

    /// A link without scheme and host, to pair a relative link with its resolved form.
    private static func path(_ link: String) -> String {
        URL(string: link).map { $0.path + ($0.query.map { "?" + $0 } ?? "") } ?? link
    }
}
