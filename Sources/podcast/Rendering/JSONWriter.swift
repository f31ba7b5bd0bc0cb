import FoundationEssentials
import PodcastKit

/// Writes JSON text straight into a byte buffer as values are given, in the order given: the
/// writer behind `JSONValue`, and what long documents (a listing of thousands of episodes) are
/// written with, one element at a time, without a value tree.
struct JSONWriter {
    /// The text written and not yet handed on.
    private var text: [UInt8] = []
    /// Indented by two spaces when true, else on one line.
    private let pretty: Bool
    /// How many objects and arrays are open.
    private var depth = 0
    /// Per open container, bit `depth - 1`: whether it is an array, and whether it holds anything
    /// yet. Bits, not an array of flags: they change on every value written.
    private var arrayBits: UInt64 = 0
    private var filledBits: UInt64 = 0

    /// The deepest nesting written; podcast's documents are a few levels deep.
    private static let maxDepth = 64

    /// A writer of indented (`pretty`) or one-line text.
    init(pretty: Bool) {
        self.pretty = pretty
        text.reserveCapacity(Self.pieceSize + 4096)
    }

    /// How much text is gathered before `handOn` passes it on.
    static let pieceSize = 64 * 1024

    /// Passes the text written so far to `output` once there is a piece's worth (or `all`).
    mutating func handOn(to output: (UnsafeRawBufferPointer) -> Void, all: Bool = false) {
        guard text.count >= Self.pieceSize || all && !text.isEmpty else { return }
        text.withUnsafeBytes(output)
        text.removeAll(keepingCapacity: true)
    }

    // MARK: Containers

    mutating func beginObject() {
        begin(UInt8(ascii: "{"), isArray: false)
    }

    mutating func endObject() {
        end(UInt8(ascii: "}"))
    }

    mutating func beginArray() {
        begin(UInt8(ascii: "["), isArray: true)
    }

    mutating func endArray() {
        end(UInt8(ascii: "]"))
    }

    /// Starts the member `name` of the open object; its value is written next.
    mutating func key(_ name: String) {
        separate()
        writeString(name)
        writeColon()
    }

    /// Starts the member `name`, a plain identifier written as it is (no escaping needed), as
    /// the contract's keys are.
    mutating func key(_ name: StaticString) {
        separate()
        text.append(UInt8(ascii: "\""))
        // Byte by byte: the contract's keys are a few letters, shorter than a bulk copy's set-up.
        name.withUTF8Buffer { for byte in $0 { text.append(byte) } }
        text.append(UInt8(ascii: "\""))
        writeColon()
    }

    /// The member `name` (a plain identifier) with a text value (null for nil).
    mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        string(value)
    }

    /// The member `name` (a plain identifier) with a number value (null for nil).
    mutating func member(_ name: StaticString, _ value: Int?) {
        key(name)
        int(value)
    }

    /// The member `name` (a plain identifier) with a date as `UTCDate.iso8601` text (null for nil),
    /// written straight into the text: it needs no escaping, and no string is made for it.
    mutating func member(_ name: StaticString, _ value: Date?) {
        key(name)
        guard let value else { return null() }
        text.append(UInt8(ascii: "\""))
        UTCDate.appendISO8601(value, to: &text)
        text.append(UInt8(ascii: "\""))
    }

    // MARK: Values

    mutating func null() {
        beginValue()
        text.append(contentsOf: "null".utf8)
    }

    mutating func bool(_ value: Bool) {
        beginValue()
        text.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// The number, or null for nil.
    mutating func int(_ value: Int?) {
        guard let value else { return null() }
        beginValue()
        if value < 0 { text.append(UInt8(ascii: "-")) }
        writeDigits(value.magnitude)
    }

    /// A finite fraction (`0.5`); Swift's shortest text for it, which JSON reads back the same.
    mutating func number(_ value: Double) {
        guard value.isFinite else { return null() }
        beginValue()
        text.append(contentsOf: "\(value)".utf8)
    }

    /// The decimal digits of `value`, written without making a string first.
    private mutating func writeDigits(_ value: UInt) {
        if value >= 10 { writeDigits(value / 10) }
        text.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// The text, quoted, or null for nil.
    mutating func string(_ value: String?) {
        guard let value else { return null() }
        beginValue()
        writeString(value)
    }

    // MARK: Layout

    /// The bit of the innermost open container.
    private var innermost: UInt64 { 1 << UInt64(depth - 1) }

    /// Before a value: in an array, the separator from the element before (in an object the key did that).
    private mutating func beginValue() {
        if depth > 0 && arrayBits & innermost != 0 { separate() }
    }

    /// A comma after an earlier element, then, when pretty, a new line indented to the depth.
    private mutating func separate() {
        guard depth > 0 else { return }
        if filledBits & innermost != 0 { text.append(UInt8(ascii: ",")) }
        filledBits |= innermost
        writeNewline(indent: depth)
    }

    private mutating func writeColon() {
        text.append(UInt8(ascii: ":"))
        if pretty { text.append(UInt8(ascii: " ")) }
    }

    private mutating func begin(_ bracket: UInt8, isArray: Bool) {
        precondition(depth < Self.maxDepth, "JSONWriter: nested deeper than \(Self.maxDepth)")
        beginValue()
        text.append(bracket)
        depth += 1
        if isArray { arrayBits |= innermost } else { arrayBits &= ~innermost }
        filledBits &= ~innermost
    }

    private mutating func end(_ bracket: UInt8) {
        let filled = filledBits & innermost != 0
        depth -= 1
        if filled { writeNewline(indent: depth) }
        text.append(bracket)
    }

    private mutating func writeNewline(indent: Int) {
        guard pretty else { return }
        text.append(UInt8(ascii: "\n"))
        text.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    // MARK: Strings

    /// Writes `value` quoted, escaping what JSON requires, U+2028 and U+2029 (which JavaScript
    /// reads as line ends) and the bidirectional controls (U+202A–U+202E, U+2066–U+2069, which
    /// reorder the text around them when the document is shown on a terminal). Runs that need no
    /// escaping, nearly all text, are copied whole.
    private mutating func writeString(_ value: String) {
        text.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            var copied = 0
            var index = 0
            while index < bytes.count {
                index = Self.skipPlainBytes(bytes, from: index)
                guard index < bytes.count else { break }
                let byte = bytes[index]
                let length = byte == 0xE2 ? Self.escapedPunctuationLength(bytes, at: index) : 1
                guard length > 0 else {
                    index += 1
                    continue
                }
                text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[copied..<index]))
                // E2 80 xx and E2 81 xx are U+2000 + the low six bits of the last two bytes.
                writeEscape(byte != 0xE2 ? UInt32(byte) : 0x2000 | UInt32(bytes[index + 1] & 0x3F) << 6 | UInt32(bytes[index + 2] & 0x3F))
                index += length
                copied = index
            }
            text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[copied...]))
        }
        text.append(UInt8(ascii: "\""))
    }

    /// The index of the first byte from `start` that may need escaping: below U+0020, a quote, a
    /// backslash, or 0xE2 (which starts the punctuation escaped); the end when there is none.
    private static func skipPlainBytes(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        // The four tests in one expression, without a branch each: most words pass all of them.
        while index + 8 <= bytes.count, !ByteWord(bytes, at: index).containsAny(below: 0x20, UInt8(ascii: "\""), UInt8(ascii: "\\"), 0xE2) {
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xE2 { return index }
            index += 1
        }
        return index
    }

    /// 3 when U+2028, U+2029 or a bidirectional control starts at `index` (its first byte, 0xE2,
    /// is there), else 0.
    private static func escapedPunctuationLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        guard index + 2 < bytes.count else { return 0 }
        switch (bytes[index + 1], bytes[index + 2]) {
        case (0x80, 0xA8...0xAE), (0x81, 0xA6...0xA9): return 3
        default: return 0
        }
    }

    /// The escape of a character below U+0020, a quote, a backslash, or punctuation from U+2000.
    private mutating func writeEscape(_ value: UInt32) {
        switch value {
        case 0x22: text.append(contentsOf: #"\""#.utf8)
        case 0x5C: text.append(contentsOf: #"\\"#.utf8)
        case 0x0A: text.append(contentsOf: #"\n"#.utf8)
        case 0x0D: text.append(contentsOf: #"\r"#.utf8)
        case 0x09: text.append(contentsOf: #"\t"#.utf8)
        default:
            let hex = String(value, radix: 16)
            text.append(contentsOf: #"\u"#.utf8)
            text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 4 - hex.utf8.count))
            text.append(contentsOf: hex.utf8)
        }
    }
}
