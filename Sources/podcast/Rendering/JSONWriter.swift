import FoundationEssentials
import PodcastKit
import PodcastText

/// Writes JSON text straight into a byte buffer as values are given, in the order given: the
/// writer behind `JSONValue`, and what long documents (a listing of thousands of episodes) are
/// written with, one element at a time, without a value tree.
struct JSONWriter {
    /// The text written and not yet handed on.
    private var text: [UInt8] = []
    /// Indented by two spaces when true, else on one line.
    private let pretty: Bool
    /// The open objects and arrays, innermost last.
    private var open: [Container] = []

    /// An open object or array.
    private struct Container {
        let isArray: Bool
        /// Whether it holds anything yet: the next element is preceded by a comma.
        var filled = false
    }

    /// A writer of indented (`pretty`) or one-line text.
    init(pretty: Bool) {
        self.pretty = pretty
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
        text.append(UInt8(ascii: ":"))
        if pretty { text.append(UInt8(ascii: " ")) }
    }

    /// The member `name` with a text value (null for nil).
    mutating func member(_ name: String, _ value: String?) {
        key(name)
        string(value)
    }

    /// The member `name` with a number value (null for nil).
    mutating func member(_ name: String, _ value: Int?) {
        key(name)
        int(value)
    }

    /// The member `name` with a date as `UTCDate.iso8601` text (null for nil).
    mutating func member(_ name: String, _ value: Date?) {
        member(name, value.map(UTCDate.iso8601))
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
        text.append(contentsOf: String(value).utf8)
    }

    /// A finite fraction (`0.5`); Swift's shortest text for it, which JSON reads back the same.
    mutating func number(_ value: Double) {
        guard value.isFinite else { return null() }
        beginValue()
        text.append(contentsOf: "\(value)".utf8)
    }

    /// The text, quoted, or null for nil.
    mutating func string(_ value: String?) {
        guard let value else { return null() }
        beginValue()
        writeString(value)
    }

    // MARK: Layout

    /// Before a value: in an array, the separator from the element before (in an object the key did that).
    private mutating func beginValue() {
        if open.last?.isArray == true { separate() }
    }

    /// A comma after an earlier element, then, when pretty, a new line indented to the depth.
    private mutating func separate() {
        guard let innermost = open.indices.last else { return }
        if open[innermost].filled { text.append(UInt8(ascii: ",")) }
        open[innermost].filled = true
        writeNewline(indent: open.count)
    }

    private mutating func begin(_ bracket: UInt8, isArray: Bool) {
        beginValue()
        text.append(bracket)
        open.append(Container(isArray: isArray))
    }

    private mutating func end(_ bracket: UInt8) {
        let filled = open.removeLast().filled
        if filled { writeNewline(indent: open.count) }
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
    /// reorder the text around them when the document is shown on a terminal).
    private mutating func writeString(_ value: String) {
        text.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    writeEscape(UInt32(byte))
                } else if let punctuation = Self.escapedPunctuation(bytes, at: index) {
                    writeEscape(punctuation)
                    index += 2
                } else {
                    text.append(byte)
                }
                index += 1
            }
        }
        text.append(UInt8(ascii: "\""))
    }

    /// U+2028, U+2029 or the bidirectional control whose three bytes of UTF-8 start at `index`,
    /// or nil when none does.
    private static func escapedPunctuation(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32? {
        guard bytes[index] == 0xE2, index + 2 < bytes.count else { return nil }
        switch (bytes[index + 1], bytes[index + 2]) {
        case (0x80, 0xA8...0xAE), (0x81, 0xA6...0xA9):
            // E2 80 xx and E2 81 xx are U+2000 + the low six bits of the last two bytes.
            return 0x2000 | UInt32(bytes[index + 1] & 0x3F) << 6 | UInt32(bytes[index + 2] & 0x3F)
        default:
            return nil
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
