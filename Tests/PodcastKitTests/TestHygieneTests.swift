import Foundation
import Testing

/// Rules every test follows, checked by reading the test sources: a suite without a time limit
/// lets one hung test stall the whole run until CI kills it, with no word of which test hung.
@Suite(.timeLimit(.minutes(5))) struct TestHygieneTests {
    /// The test targets' folders, found from this file's place in one of them.
    private static let folders = ["PodcastKitTests", "PodcastCLITests"].map {
        URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../\($0)").standardized
    }

    /// Every Swift file of the test targets: its name and its text.
    private static func sources() throws -> [(name: String, text: String)] {
        try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted().map {
                (name: $0, text: try String(contentsOf: folder.appending(path: $0), encoding: .utf8))
            }
        }
    }

    /// A limit counts from when a test is scheduled, not from when it gets a thread: in a full run
    /// on a loaded machine (2 cores, 940 tests, 163 s) tests of a few milliseconds passed 1 minute
    /// and tests running the binary a few times passed 2, so no suite has less than 3, nor less
    /// than 4 with hundreds of cases queued at once.
    @Test func everySuiteHasATimeLimit() throws {
        var suites: [SuiteDeclarations.Suite] = []
        var freeTests: [String] = []
        for (name, text) in try Self.sources() {
            let declarations = SuiteDeclarations(text, file: name)
            suites += declarations.suites
            freeTests += declarations.freeTests.map { "\(name):\($0)" }
        }
        // Too few found means the folders moved or the reading broke: fail rather than pass on nothing.
        #expect(suites.count > 100, "found \(suites.count) suites in \(Self.folders.map(\.path))")
        let unlimited = suites.filter { !$0.hasTimeLimit }.map(\.description)
        #expect(unlimited == [], "suites without .timeLimit(.minutes(N)) on their @Suite")
        #expect(freeTests == [], "tests outside any suite, so under no suite's time limit")
    }

    /// A test that asserts nothing passes whatever the code does. Helpers count: a test asserts
    /// when it calls, at any depth, a function of the test sources that asserts, by its bare name
    /// (`check(…)`, `Self.check(…)`) or, on a value, one taking the caller's `SourceLocation`
    /// (`comparison.verify(…)`): `parser.parse(…)` is the code under test, whatever helper shares its name.
    @Test func everyTestAsserts() throws {
        let functions = try Self.sources().flatMap { FunctionBodies($0.text, file: $0.name).functions }
        let tests = functions.filter(\.isTest)
        #expect(tests.count > 500, "found \(tests.count) tests in \(Self.folders.map(\.path))")
        let silent = FunctionBodies.silentTests(in: functions).map(\.description)
        #expect(silent == [], "tests with no #expect, #require or Issue.record, nor a call to a function with one")
    }

    /// The reading itself: a check that finds nothing must be one that could have found something.
    @Test func theReadingNamesEverySuiteWithoutALimit() {
        let source = #"""
            @Suite(.timeLimit(.minutes(5))) struct Limited {
                @Test func a() {}
                struct Nested { @Test func b() { let s = "}" } }
            }
            @Suite(.serialized,
                   .timeLimit(.minutes(5)))
            final class LimitedOverLines { @Test func c() {} }
            @Suite struct Bare {
                /* a comment with a { brace /* nested */ */
                @Test func d() { _ = #/\{/# }
            }
            struct Implicit { @Test(arguments: [1]) func e(_ n: Int) {} }
            struct NoTests { let text = "@Test func f() {}" // @Test
                let block = """
                    @Test func g() { \("\(1)") }
                    """
            }
            extension Later { @Test func h() {} }
            @Suite(.timeLimit(.minutes(5))) struct Later {}
            @Test func free() {}
            """#
        let declarations = SuiteDeclarations(source, file: "Sample.swift")
        #expect(declarations.suites.map(\.name) == ["Limited", "Limited.Nested", "LimitedOverLines", "Bare", "Implicit", "Later"])
        #expect(declarations.suites.filter { !$0.hasTimeLimit }.map(\.description) == [
            "Sample.swift:3 Limited.Nested", "Sample.swift:8 Bare", "Sample.swift:12 Implicit",
        ])
        #expect(declarations.suites.map(\.tests) == [1, 1, 1, 1, 1, 1])
        #expect(declarations.freeTests == [20])
    }

    @Test func theReadingNamesEveryTestThatAssertsNothing() {
        let source = #"""
            @Suite(.timeLimit(.minutes(5))) struct Sample {
                @Test func direct() { #expect(1 + 1 == 2) }
                @Test func throughHelpers() throws { try outer() }
                @Test func silent() { _ = "#expect(true)" /* #expect(true) */ }
                @Test(arguments: [1]) func silentToo(_ n: Int) { helperThatAssertsNothing() }
                @Test func onAValue() { Checker().verify() }
                @Test func codeUnderTestSharingAHelpersName() { parser.inner {} }
                func outer() throws { Self.inner {} }
                func inner(_ body: () -> Void) { Issue.record("x") }
                func helperThatAssertsNothing() {}
            }
            struct Checker { func verify(at location: SourceLocation = #_sourceLocation) { outer() } }
            protocol Requirement { func needsNoBody() }
            """#
        let functions = FunctionBodies(source, file: "Sample.swift").functions
        #expect(functions.map(\.name) == [
            "direct", "throughHelpers", "silent", "silentToo", "onAValue", "codeUnderTestSharingAHelpersName",
            "outer", "inner", "helperThatAssertsNothing", "verify",
        ])
        #expect(functions.filter(\.isTest).count == 6)
        #expect(FunctionBodies.silentTests(in: functions).map(\.description) == [
            "Sample.swift:4 silent", "Sample.swift:5 silentToo", "Sample.swift:7 codeUnderTestSharingAHelpersName",
        ])
    }
}

/// The functions one Swift file declares with a body: whether each is a `@Test`, whether its body
/// asserts, and the names it calls.
private struct FunctionBodies {
    /// One function and what its body does.
    struct Function: CustomStringConvertible {
        let name: String
        let file: String
        let line: Int
        let isTest: Bool
        /// True when the body holds `#expect`, `#require`, `Issue.record` or `withKnownIssue`.
        let asserts: Bool
        /// True when it takes a `SourceLocation`, as an assertion helper does to blame its caller.
        let takesSourceLocation: Bool
        /// The names called in the body by themselves or on `self` (a name before `(` or a trailing `{`).
        let calls: Set<String>
        /// The names called in the body on some other value (`value.name(…)`).
        let methodCalls: Set<String>

        var description: String { "\(file):\(line) \(name)" }
    }

    private(set) var functions: [Function] = []

    init(_ source: String, file: String) {
        let code = String(decoding: CodeWithoutLiterals(source).bytes, as: UTF8.self)
        var isTest = false
        var line = 1
        var counted = code.startIndex
        for match in code.matches(of: #/@Test\b|\bfunc\s+([A-Za-z_]\w*)/#) {
            guard let name = match.output.1 else {
                isTest = true
                continue
            }
            defer { isTest = false }
            guard let body = Self.body(in: code, after: match.range.upperBound) else { continue }
            let signature = code[match.range.upperBound..<body.startIndex]
            line += code.utf8[counted..<match.range.lowerBound].count { $0 == UInt8(ascii: "\n") }
            counted = match.range.lowerBound
            let asserts = body.contains(#/#expect\b|#require\b|\bIssue\.record\b|\bwithKnownIssue\b/#)
            var calls: Set<String> = []
            var methodCalls: Set<String> = []
            for call in body.matches(of: #/(\b[Ss]elf\.|\.)?([A-Za-z_]\w*)\s*[({]/#) {
                if call.output.1 == "." { methodCalls.insert(String(call.output.2)) } else { calls.insert(String(call.output.2)) }
            }
            functions.append(Function(
                name: String(name), file: file, line: line, isTest: isTest, asserts: asserts,
                takesSourceLocation: signature.contains("SourceLocation"), calls: calls, methodCalls: methodCalls))
        }
    }

    /// The body from the first `{` after `start` to its `}`; nil when a `}` comes first (a
    /// requirement in a protocol has no body).
    private static func body(in code: String, after start: String.Index) -> Substring? {
        let bytes = code.utf8
        guard let open = bytes[start...].firstIndex(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }),
            bytes[open] == UInt8(ascii: "{")
        else { return nil }
        var depth = 0
        for index in bytes[open...].indices {
            if bytes[index] == UInt8(ascii: "{") { depth += 1 }
            if bytes[index] == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return code[open...index] }
            }
        }
        return nil
    }

    /// The tests among `functions` that assert nothing themselves and call no function that does,
    /// however deep. A function is known by its name alone, so a helper's name reused by a silent
    /// function elsewhere still counts as asserting.
    static func silentTests(in functions: [Function]) -> [Function] {
        var asserting = Set(functions.filter(\.asserts).map(\.name))
        var helpers: Set<String> = []
        func reachesAnAssertion(_ function: Function) -> Bool {
            function.asserts || !function.calls.isDisjoint(with: asserting) || !function.methodCalls.isDisjoint(with: helpers)
        }
        while true {
            helpers = Set(functions.filter { $0.takesSourceLocation && asserting.contains($0.name) }.map(\.name))
            let more = functions.filter { !asserting.contains($0.name) && reachesAnAssertion($0) }
            if more.isEmpty { break }
            asserting.formUnion(more.map(\.name))
        }
        return functions.filter { $0.isTest && !reachesAnAssertion($0) }
    }
}

/// The suites one Swift file declares: each type holding `@Test` functions (directly or in an
/// extension of it in the same file) or marked `@Suite`, with the arguments of its `@Suite`.
private struct SuiteDeclarations {
    /// One suite, where it is declared and how.
    struct Suite: CustomStringConvertible {
        /// The type's name, with the types it is nested in (`Outer.Inner`).
        let name: String
        let file: String
        let line: Int
        /// What follows `@Suite` up to the type's keyword (`(.serialized)`); nil without `@Suite`.
        let attribute: String?
        var tests = 0

        var hasTimeLimit: Bool { attribute?.contains(".timeLimit(") == true }
        var description: String { "\(file):\(line) \(name)" }
    }

    /// The keywords that declare a type `@Suite` can mark, or extend one.
    private static let typeKeywords: Set<String> = ["struct", "class", "actor", "enum", "extension"]

    private(set) var suites: [Suite] = []
    /// The lines of `@Test` functions that are in no type.
    private(set) var freeTests: [Int] = []

    init(_ source: String, file: String) {
        let code = CodeWithoutLiterals(source).bytes
        /// A type whose body is open: its name, and for a declaration its place in `found`.
        struct Open {
            let name: String
            let isExtension: Bool
            let found: Int?
        }
        var found: [Suite] = []
        var stack: [Open?] = []
        var pendingAttribute: String?
        var pendingType: Open?
        var extensionTests: [String: Int] = [:]
        var line = 1
        var index = 0
        func word(at start: Int) -> String {
            var end = start
            while end < code.count, code[end].isIdentifier { end += 1 }
            return String(decoding: code[start..<end], as: UTF8.self)
        }
        func startsWord(_ position: Int) -> Bool {
            position == 0 || !code[position - 1].isIdentifier
        }
        while index < code.count {
            let byte = code[index]
            if byte == .newline { line += 1 }
            if byte == UInt8(ascii: "{") {
                stack.append(pendingType)
                pendingType = nil
            } else if byte == UInt8(ascii: "}") {
                _ = stack.popLast()
            } else if byte == UInt8(ascii: "@") {
                let attribute = word(at: index + 1)
                index += 1 + attribute.utf8.count
                if attribute == "Test" {
                    if let owner = stack.last(where: { $0 != nil }) ?? nil {
                        if let suite = owner.found { found[suite].tests += 1 } else { extensionTests[owner.name, default: 0] += 1 }
                    } else {
                        freeTests.append(line)
                    }
                } else if attribute == "Suite" {
                    // Everything up to the type's keyword: the arguments, over lines if need be.
                    var end = index
                    while end < code.count, !(startsWord(end) && Self.typeKeywords.contains(word(at: end))) { end += 1 }
                    pendingAttribute = String(decoding: code[index..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    line += code[index..<end].count(where: { $0 == .newline })
                    index = end
                }
                continue
            } else if byte.isIdentifier, startsWord(index) {
                var end = index
                while end < code.count, code[end].isIdentifier { end += 1 }
                // Most words are no keyword: only a word as long as one, starting as one, is made a String.
                guard (4...9).contains(end - index), Array("scaep".utf8).contains(byte) else {
                    index = end
                    continue
                }
                let keyword = word(at: index)
                index = end
                guard Self.typeKeywords.contains(keyword) || keyword == "protocol" else { continue }
                var start = index
                while start < code.count, code[start] == .space || code[start] == .newline {
                    if code[start] == .newline { line += 1 }
                    start += 1
                }
                var nameEnd = start
                while nameEnd < code.count, code[nameEnd].isIdentifier || code[nameEnd] == UInt8(ascii: ".") { nameEnd += 1 }
                let name = String(decoding: code[start..<nameEnd], as: UTF8.self)
                index = nameEnd
                // `class func`, `class var`: a modifier, not a type.
                guard !name.isEmpty, !["func", "var", "let", "subscript", "init"].contains(name) else { continue }
                if keyword == "extension" {
                    pendingType = Open(name: name, isExtension: true, found: nil)
                } else {
                    let outer = stack.compactMap { $0 }.filter { !$0.isExtension }.map(\.name)
                    found.append(Suite(name: (outer + [name]).joined(separator: "."), file: file, line: line, attribute: pendingAttribute))
                    pendingType = Open(name: found[found.count - 1].name, isExtension: false, found: found.count - 1)
                }
                pendingAttribute = nil
                continue
            }
            index += 1
        }
        for (name, tests) in extensionTests {
            if let suite = found.firstIndex(where: { $0.name == name || $0.name.hasSuffix(".\(name)") }) {
                found[suite].tests += tests
            }
        }
        suites = found.filter { $0.tests > 0 || $0.attribute != nil }
    }
}

/// Swift source as bytes with its comments and its string and regex literals blanked out (new
/// lines kept), so that a brace or an `@Test` inside one is not taken for code.
private struct CodeWithoutLiterals {
    private(set) var bytes: [UInt8]
    private let source: [UInt8]
    private var index = 0

    init(_ text: String) {
        source = Array(text.utf8)
        bytes = source
        code(inInterpolation: false)
    }

    /// Code up to the end, or up to the parenthesis that closes an interpolation.
    private mutating func code(inInterpolation: Bool) {
        var depth = 0
        while index < source.count {
            // The first byte is looked at before any `starts`: this runs for every byte of the sources.
            let byte = source[index]
            if byte == UInt8(ascii: "/"), starts("//") {
                let end = source[index...].firstIndex(of: .newline) ?? source.count
                blank(index..<end)
                index = end
                continue
            }
            if byte == UInt8(ascii: "/"), starts("/*") {
                comment()
                continue
            }
            guard byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")") else {
                index += 1
                continue
            }
            var hashes = 0
            while index + hashes < source.count, source[index + hashes] == UInt8(ascii: "#") { hashes += 1 }
            if index + hashes < source.count {
                let next = source[index + hashes]
                // `"…"`, `#"…"#`, `"""…"""`, and `#/…/#` (a bare `/` is division more often than a regex).
                if next == UInt8(ascii: "\"") || (hashes > 0 && next == UInt8(ascii: "/")) {
                    literal(hashes: hashes)
                    continue
                }
            }
            if byte == UInt8(ascii: "(") {
                depth += 1
            } else if byte == UInt8(ascii: ")"), inInterpolation {
                if depth == 0 { return }
                depth -= 1
            }
            index += 1
        }
    }

    /// A comment from its `/*` to its `*/`; comments nest.
    private mutating func comment() {
        let start = index
        var depth = 0
        while index < source.count {
            if starts("/*") {
                depth += 1
                index += 2
            } else if starts("*/") {
                depth -= 1
                index += 2
                if depth == 0 { break }
            } else {
                index += 1
            }
        }
        blank(start..<index)
    }

    /// A literal from its opening `#`s to its closing delimiter, past any interpolations in it.
    private mutating func literal(hashes: Int) {
        let start = index
        index += hashes
        let hashMarks = String(repeating: "#", count: hashes)
        let opening = starts("\"\"\"") ? "\"\"\"" : String(UnicodeScalar(source[index]))
        let isRegex = opening == "/"
        index += opening.utf8.count
        let closing = opening + hashMarks
        let escape = "\\" + hashMarks
        while index < source.count {
            let byte = source[index]
            if isRegex, byte == UInt8(ascii: "\\") {
                index += 2
            } else if !isRegex, byte == UInt8(ascii: "\\"), starts(escape) {
                index += escape.utf8.count
                if index < source.count, source[index] == UInt8(ascii: "(") {
                    index += 1
                    code(inInterpolation: true)
                }
                index += 1
            } else if byte == closing.utf8.first, starts(closing) {
                index += closing.utf8.count
                break
            } else {
                index += 1
            }
        }
        blank(start..<min(index, source.count))
    }

    private func starts(_ text: String) -> Bool {
        source[index...].starts(with: text.utf8)
    }

    private mutating func blank(_ range: Range<Int>) {
        for position in range where bytes[position] != .newline { bytes[position] = .space }
    }
}

private extension UInt8 {
    static let newline = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")

    /// A byte of a Swift identifier or keyword (ASCII is all the test sources use in names).
    var isIdentifier: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || self == UInt8(ascii: "_")
    }
}
