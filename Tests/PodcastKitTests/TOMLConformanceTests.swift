import Foundation
@testable import PodcastTOML
import PodcastTestSupport
import Testing

/// The TOML 1.0 cases of the official conformance suite (toml-lang/toml-test, as go-toml embeds
/// it; see Tests/Fixtures/ORIGINS.tsv): every valid document reads to exactly the values its JSON
/// names, every invalid one is refused. Each file is one test case.
@Suite(.timeLimit(.minutes(5))) struct TOMLConformanceTests {
    /// How many cases each folder holds: a file that goes missing fails here, not silently.
    static let expectedCounts: [String: Int] = [
        "valid/array": 21, "valid/bool": 1, "valid/comment": 7, "valid/datetime": 8, "valid/float": 6,
        "valid/inline-table": 9, "valid/integer": 5, "valid/key": 17, "valid/spec": 48, "valid/string": 17,
        "valid/table": 19,
        "invalid/array": 26, "invalid/bool": 15, "invalid/control": 31, "invalid/datetime": 15,
        "invalid/encoding": 11, "invalid/float": 34, "invalid/inline-table": 27, "invalid/integer": 38,
        "invalid/key": 34, "invalid/local-date": 9, "invalid/local-datetime": 14, "invalid/local-time": 6,
        "invalid/spec": 8, "invalid/string": 52, "invalid/table": 35,
    ]

    static let valid = TOMLTestFiles.documents(under: "valid")
    static let invalid = TOMLTestFiles.documents(under: "invalid")

    @Test func everyFolderHoldsItsCases() {
        var counts: [String: Int] = [:]
        for path in Self.valid + Self.invalid {
            counts[String(path.dropFirst("toml-test/".count).split(separator: "/").dropLast().joined(separator: "/")), default: 0] += 1
        }
        #expect(counts == Self.expectedCounts)
        #expect(Self.valid.count == 158)
        #expect(Self.invalid.count == 355)
    }

    @Test(arguments: valid)
    func validDocumentReadsToItsExpectedValues(path: String) throws {
        let document = try TOMLParser.parse([UInt8](Fixtures.data(path)))
        let expected = try PeerJSON(data: Fixtures.data(PeerFixtures.sibling(of: path, extension: "json")))
        #expect(TOMLTestJSON.tagged(.table(document)) == TOMLTestJSON.normalized(expected), "\(path)")
    }

    @Test(arguments: invalid)
    func invalidDocumentIsRefused(path: String) throws {
        let bytes = [UInt8](try Fixtures.data(path))
        #expect(throws: TOMLError.self, "\(path)") { try TOMLParser.parse(bytes) }
    }
}

/// The suite's documents, found by walking its folders.
enum TOMLTestFiles {
    /// The `.toml` files one folder below `toml-test/<kind>`, as fixture paths, sorted.
    static func documents(under kind: String) -> [String] {
        let root = "toml-test/" + kind
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.appending(path: root).path)) ?? []
        return folders.sorted().flatMap { PeerFixtures.files(in: root + "/" + $0, suffixes: [".toml"]) }
    }
}

/// toml-test's tagged JSON (`{"type": "integer", "value": "42"}`), with both sides written the
/// same way: floats by value (nan and infinities by kind), dates and times as RFC 3339 text with
/// `T` and `Z` in capitals and no trailing zeros in the fraction.
enum TOMLTestJSON {
    /// A value of ours in the tagged form.
    static func tagged(_ value: TOMLValue) -> PeerJSON {
        switch value {
        case .string(let text): tag("string", text)
        case .integer(let number): tag("integer", String(number))
        case .float(let number): tag("float", canonical(number))
        case .boolean(let flag): tag("bool", String(flag))
        case .offsetDateTime(let moment): tag("datetime", moment.description)
        case .localDateTime(let moment): tag("datetime-local", moment.description)
        case .localDate(let date): tag("date-local", date.description)
        case .localTime(let time): tag("time-local", time.description)
        case .array(let items): .array(items.map(tagged))
        case .table(let table): .object(Dictionary(uniqueKeysWithValues: table.entries.map { ($0.key, tagged($0.value)) }))
        }
    }

    /// The suite's expected JSON with its scalars written as `tagged` writes ours.
    static func normalized(_ json: PeerJSON) -> PeerJSON {
        switch json {
        case .array(let items):
            return .array(items.map(normalized))
        case .object(let members):
            guard members.count == 2, case .string(let type)? = members["type"], case .string(let value)? = members["value"] else {
                return .object(members.mapValues(normalized))
            }
            switch type {
            case "integer": return tag(type, Int64(value).map(String.init) ?? value)
            case "float": return tag(type, canonical(value))
            case "datetime", "datetime-local", "date-local", "time-local": return tag(type, moment(value))
            default: return tag(type, value)
            }
        default:
            return json
        }
    }

    private static func tag(_ type: String, _ value: String) -> PeerJSON {
        .object(["type": .string(type), "value": .string(value)])
    }

    private static func canonical(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "+inf" }
        return "\(number)"
    }

    private static func canonical(_ text: String) -> String {
        switch text {
        case "nan", "+nan", "-nan": "nan"
        case "inf", "+inf": "+inf"
        case "-inf": "-inf"
        default: Double(text).map(canonical) ?? text
        }
    }

    /// RFC 3339 text as one form: `T` and `Z` in capitals, a zero offset as `Z`, the fraction
    /// without trailing zeros and cut to nanoseconds.
    private static func moment(_ text: String) -> String {
        var text = text.uppercased()
        if text.count > 10, text[text.index(text.startIndex, offsetBy: 10)] == " " {
            text.replaceSubrange(text.index(text.startIndex, offsetBy: 10)...text.index(text.startIndex, offsetBy: 10), with: "T")
        }
        for zero in ["+00:00", "-00:00"] where text.hasSuffix(zero) { text = String(text.dropLast(zero.count)) + "Z" }
        guard let point = text.firstIndex(of: ".") else { return text }
        let digits = text[text.index(after: point)...].prefix { $0.isNumber }
        var fraction = String(digits.prefix(9))
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return String(text[..<point]) + (fraction.isEmpty ? "" : "." + fraction) + text[digits.endIndex...]
    }
}
