/// A JSON document built in the contract's key order, with explicit nulls.
enum JSONValue {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// An array of `count` elements made one at a time as it is written, so that a listing of
    /// thousands of episodes never exists whole, as values or as text.
    case generatedArray(count: Int, element: (Int) -> JSONValue)

    /// `.string(text)`, or `.null` for nil.
    static func string(_ text: String?) -> JSONValue {
        text.map { .string($0) } ?? .null
    }

    /// `.int(number)`, or `.null` for nil.
    static func int(_ number: Int?) -> JSONValue {
        number.map { .int($0) } ?? .null
    }

    /// The document as text: indented by two spaces when `pretty`, else on one line.
    func serialized(pretty: Bool) -> String {
        var text = ""
        write(pretty: pretty) { text += $0 }
        return text
    }

    /// Writes the document as `serialized(pretty:)` would return it, handing it to `output` in
    /// pieces of about 64 KiB, in order.
    func write(pretty: Bool, to output: (String) -> Void) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Self.pieceSize + 4096)
        write(to: &buffer, pretty: pretty, indent: 0, output: output)
        if !buffer.isEmpty { output(String(decoding: buffer, as: UTF8.self)) }
    }

    /// How much text is gathered before it is handed on.
    private static let pieceSize = 64 * 1024

    private func write(to buffer: inout [UInt8], pretty: Bool, indent: Int, output: (String) -> Void) {
        switch self {
        case .null: buffer.append(contentsOf: "null".utf8)
        case .bool(let value): buffer.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): buffer.append(contentsOf: String(value).utf8)
        case .string(let value): Self.writeString(value, to: &buffer)
        case .array(let values):
            Self.writeArray(count: values.count, to: &buffer, pretty: pretty, indent: indent, output: output) { values[$0] }
        case .generatedArray(let count, let element):
            Self.writeArray(count: count, to: &buffer, pretty: pretty, indent: indent, output: output, element: element)
        case .object(let members):
            guard !members.isEmpty else { buffer.append(contentsOf: "{}".utf8); return }
            buffer.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                Self.writeNewline(to: &buffer, pretty: pretty, indent: indent + 1)
                Self.writeString(key, to: &buffer)
                buffer.append(contentsOf: (pretty ? ": " : ":").utf8)
                value.write(to: &buffer, pretty: pretty, indent: indent + 1, output: output)
            }
            Self.writeNewline(to: &buffer, pretty: pretty, indent: indent)
            buffer.append(UInt8(ascii: "}"))
        }
    }

    /// Writes an array's elements in order, handing on each full piece between them.
    private static func writeArray(
        count: Int, to buffer: inout [UInt8], pretty: Bool, indent: Int, output: (String) -> Void,
        element: (Int) -> JSONValue
    ) {
        guard count > 0 else { buffer.append(contentsOf: "[]".utf8); return }
        buffer.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            writeNewline(to: &buffer, pretty: pretty, indent: indent + 1)
            element(index).write(to: &buffer, pretty: pretty, indent: indent + 1, output: output)
            if buffer.count >= pieceSize {
                output(String(decoding: buffer, as: UTF8.self))
                buffer.removeAll(keepingCapacity: true)
            }
        }
        writeNewline(to: &buffer, pretty: pretty, indent: indent)
        buffer.append(UInt8(ascii: "]"))
    }

    private static func writeNewline(to buffer: inout [UInt8], pretty: Bool, indent: Int) {
        guard pretty else { return }
        buffer.append(UInt8(ascii: "\n"))
        buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    /// Writes `text` quoted, escaping what JSON requires and U+2028 and U+2029 (which JavaScript
    /// reads as line ends). Runs that need no escaping, nearly all text, are copied whole.
    private static func writeString(_ text: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var copied = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                // 0xE2 starts U+2028 and U+2029.
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xE2 else {
                    index += 1
                    continue
                }
                let length = byte == 0xE2 ? lineSeparatorLength(bytes, at: index) : 1
                guard length > 0 else {
                    index += 1
                    continue
                }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<index]))
                writeEscape(byte != 0xE2 ? UInt32(byte) : bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029, to: &buffer)
                index += length
                copied = index
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// 3 when U+2028 or U+2029 starts at `index` (its first byte, 0xE2, is there), else 0.
    private static func lineSeparatorLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        guard index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9
        else { return 0 }
        return 3
    }

    /// The escape of a character below U+0020, a quote, a backslash, U+2028 or U+2029.
    private static func writeEscape(_ value: UInt32, to buffer: inout [UInt8]) {
        switch value {
        case 0x22: buffer.append(contentsOf: #"\""#.utf8)
        case 0x5C: buffer.append(contentsOf: #"\\"#.utf8)
        case 0x0A: buffer.append(contentsOf: #"\n"#.utf8)
        case 0x0D: buffer.append(contentsOf: #"\r"#.utf8)
        case 0x09: buffer.append(contentsOf: #"\t"#.utf8)
        default:
            let hex = String(value, radix: 16)
            buffer.append(contentsOf: #"\u"#.utf8)
            buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 4 - hex.utf8.count))
            buffer.append(contentsOf: hex.utf8)
        }
    }
}
