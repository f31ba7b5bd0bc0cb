import Foundation
@testable import PodcastTOML
import PodcastTestSupport
import Testing

/// What the conformance suite does not pin: the lines the configuration reader reports, the
/// wording and place of errors, and hostile documents that must fail fast instead of crashing.
@Suite(.timeLimit(.minutes(5))) struct TOMLParserTests {
    // MARK: Lines

    @Test func eachKeyKeepsTheLineItWasWrittenOn() throws {
        let document = try TOMLParser.parse("# settings\ncountry = \"GB\"\n\n[download]\nconcurrency = 3\nlimit.rate = 1\n")
        #expect(document.entry("country")?.line == 2)
        guard case .table(let download)? = document["download"] else { Issue.record("no [download]"); return }
        #expect(download.headerLine == 4)
        #expect(download.entry("concurrency")?.line == 5)
        #expect(download.entry("limit")?.line == 6)
        #expect(document.entries.map(\.key) == ["country", "download"])
    }

    @Test func aTableDefinedAfterItsSubTableKeepsItsOwnHeaderLine() throws {
        let document = try TOMLParser.parse("[a.b]\nx = 1\n\n[a]\ny = 2\n")
        guard case .table(let table)? = document["a"] else { Issue.record("no [a]"); return }
        #expect(table.headerLine == 4)
        #expect(document.entry("a")?.line == 1)
    }

    @Test func crlfLineEndingsAndAByteOrderMarkAreRead() throws {
        let document = try TOMLParser.parse([0xEF, 0xBB, 0xBF] + Array("a = 1\r\nb = \"\"\"\r\nx\r\ny\"\"\"\r\n".utf8))
        #expect(document["a"] == .integer(1))
        #expect(document["b"] == .string("x\ny"))
        #expect(document.entry("b")?.line == 2)
    }

    // MARK: Errors

    @Test func aKeyDefinedTwiceNamesTheFirstLine() {
        #expect(throws: TOMLError(line: 3, column: 1, "the key \"x\" is already defined on line 1")) {
            try TOMLParser.parse("x = 1\ny = 2\nx = 3\n")
        }
    }

    @Test func aMissingEqualsSignIsNamedAtItsColumn() {
        #expect(throws: TOMLError(line: 2, column: 8, "expected \"=\" after the key, found the end of the line")) {
            try TOMLParser.parse("a = 1\nretries\n")
        }
    }

    @Test func columnsCountCharactersNotBytes() {
        #expect(throws: TOMLError(line: 1, column: 10, "expected the end of the line after the value, found \"x\"")) {
            try TOMLParser.parse("\"é\" = 12 x\n")
        }
    }

    @Test func aTableDefinedTwiceNamesItsHeader() {
        #expect(throws: TOMLError(line: 3, column: 2, "the table [a] is already defined on line 1")) {
            try TOMLParser.parse("[a]\nx = 1\n[a]\n")
        }
    }

    @Test func anIntegerPast64BitsIsRefused() {
        #expect(throws: TOMLError(line: 1, column: 5, "\"9223372036854775808\" does not fit in a 64-bit integer")) {
            try TOMLParser.parse("n = 9223372036854775808\n")
        }
    }

    @Test func aDayTheMonthDoesNotHaveIsRefused() throws {
        #expect(throws: TOMLError.self) { try TOMLParser.parse("d = 2023-02-29\n") }
        #expect(try TOMLParser.parse("d = 2024-02-29\n")["d"] == .localDate(TOMLLocalDate(year: 2024, month: 2, day: 29)))
    }

    // MARK: Hostile documents

    @Test func deepArraysAreRefusedAtTheCap() {
        let depth = 100_000
        let text = "a = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let error = #expect(throws: TOMLError.self) { try TOMLParser.parse(text) }
        #expect(error?.message == "tables and arrays are nested more than 128 deep")
    }

    @Test func deepInlineTablesAreRefusedAtTheCap() {
        let depth = 100_000
        let text = "a = " + String(repeating: "{b = ", count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(throws: TOMLError.self) { try TOMLParser.parse(text) }
    }

    @Test func nestingUpToTheCapIsRead() throws {
        let depth = TOMLParser.maximumDepth
        let text = "a = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(try TOMLParser.parse(text)["a"] != nil)
    }

    @Test func longDottedKeysAndHeadersAreRefusedAtTheCap() {
        let key = Array(repeating: "k", count: 10_000).joined(separator: ".")
        #expect(throws: TOMLError.self) { try TOMLParser.parse(key + " = 1\n") }
        #expect(throws: TOMLError.self) { try TOMLParser.parse("[" + key + "]\n") }
        #expect(throws: TOMLError.self) { try TOMLParser.parse("[[" + key + "]]\n") }
    }

    /// A configuration is tiny, but a hostile or broken one is not: a 50 MB string, and each
    /// other form of string and a comment 10 MB long, is read with work linear in its length.
    /// The bound is on the work per byte (`WorkMeter`: instructions, or the thread's CPU time
    /// without a PMU) at a tenth of the size and at the size, never on seconds: a quadratic step
    /// (re-scanning or re-copying what was read) multiplies the larger figure tenfold.
    @Test(arguments: [
        ("basic", 50_000_000, true), ("literal", 10_000_000, true), ("multi-line basic", 10_000_000, true),
        ("multi-line literal", 10_000_000, true), ("comment", 10_000_000, false),
    ])
    func longStringsAreReadInLinearWork(form: String, size: Int, isValue: Bool) throws {
        func document(_ size: Int) -> String {
            let text = String(repeating: "podcast ", count: size / 8)
            switch form {
            case "basic": return "s = \"" + text + "\"\n"
            case "literal": return "s = '" + text + "'\n"
            case "multi-line basic": return "s = \"\"\"\n" + text + "\"\"\"\n"
            case "multi-line literal": return "s = \'\'\'\n" + text + "\'\'\'\n"
            default: return "# " + text + "\ns = \"\"\n"
            }
        }
        var perByte: [Double] = []
        var unit = WorkMeter.Unit.instructions
        for length in [size / 10, size] {
            let text = document(length)
            var parsed: TOMLTable?
            let work = try WorkMeter.work { parsed = try TOMLParser.parse(text) }
            let read = parsed?["s"].map { value -> Int in if case .string(let string) = value { string.utf8.count } else { -1 } }
            #expect(read == (isValue ? length : 0))
            perByte.append(work.amount / Double(length))
            unit = work.unit
        }
        #expect(perByte[1] < perByte[0] * 2, "\(form): \(perByte[0]) \(unit.rawValue) a byte at \(size / 10) bytes, \(perByte[1]) at \(size)")
    }

    @Test func aHundredThousandKeysAreReadInLinearWork() throws {
        func document(_ count: Int) -> String {
            var text = "[big]\n"
            for index in 0..<count { text += "key\(index) = \(index)\n" }
            return text
        }
        var perKey: [Double] = []
        var unit = WorkMeter.Unit.instructions
        for count in [10_000, 100_000] {
            let text = document(count)
            var parsed: TOMLTable?
            let work = try WorkMeter.work { parsed = try TOMLParser.parse(text) }
            unit = work.unit
            guard case .table(let big)? = parsed?["big"] else { Issue.record("no [big]"); return }
            #expect(big.entries.count == count)
            #expect(big.entry("key\(count - 1)")?.line == count + 1)
            perKey.append(work.amount / Double(count))
        }
        #expect(perKey[1] < perKey[0] * 2, "\(perKey[0]) \(unit.rawValue) a key for 10,000 keys, \(perKey[1]) for 100,000")
    }

    @Test func aHundredThousandTablesInAnArrayAreRead() throws {
        let text = String(repeating: "[[item]]\nx = 1\n", count: 100_000)
        guard case .array(let items)? = try TOMLParser.parse(text)["item"] else { Issue.record("no [[item]]"); return }
        #expect(items.count == 100_000)
    }

    @Test func anUnclosedStringAtTheEndIsAnErrorNotACrash() {
        for text in ["a = \"", "a = '", "a = \"\"\"", "a = '''", "a = \"\\", "a = \"\\u12", "a = [", "a = {", "[a", "a = 1979-05-27T", "\"a"] {
            #expect(throws: TOMLError.self, "\(text)") { try TOMLParser.parse(text) }
        }
    }
}
