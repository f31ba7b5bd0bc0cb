/// A setting's value as it is read and written outside the program: in the configuration file
/// (TOML), on the command line (text), in a stored batch or download record (JSON), and in
/// `podcast config --json`. Each setting's `SettingKind` turns it into the typed value the code
/// uses, and back.
public enum SettingValue: Sendable, Equatable, Codable {
    /// Not set: no speed cap, no proxy, the system's certificate authorities.
    case none
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case text(String)
    case list([String])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .none
        } else if let flag = try? container.decode(Bool.self) {
            self = .boolean(flag)
        } else if let whole = try? container.decode(Int64.self) {
            self = .integer(whole)
        } else if let fraction = try? container.decode(Double.self) {
            self = .number(fraction)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            self = .list(try container.decode([String].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .none: try container.encodeNil()
        case .boolean(let flag): try container.encode(flag)
        case .integer(let whole): try container.encode(whole)
        case .number(let fraction): try container.encode(fraction)
        case .text(let text): try container.encode(text)
        case .list(let items): try container.encode(items)
        }
    }

    /// The value as TOML writes it (`3`, `"2M"`, `["srt", "vtt"]`); nil for `none`, which TOML
    /// cannot write.
    public var toml: String? {
        switch self {
        case .none: nil
        case .boolean(let flag): "\(flag)"
        case .integer(let whole): "\(whole)"
        case .number(let fraction): "\(fraction)"
        case .text(let text): Self.quoted(text)
        case .list(let items): "[" + items.map(Self.quoted).joined(separator: ", ") + "]"
        }
    }

    /// `text` as a TOML basic string, escaped so the parser reads back the same text. Escapes
    /// are all ASCII, so the bytes between them are copied as runs: a 50 MB value is written in
    /// a fraction of a second instead of a minute scalar by scalar.
    static func quoted(_ text: String) -> String {
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        quoted.reserveCapacity(text.utf8.count + 2)
        var run = text.utf8.startIndex
        for index in text.utf8.indices {
            let byte = text.utf8[index]
            let escape: String
            switch byte {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case UInt8(ascii: "\n"): escape = "\\n"
            case UInt8(ascii: "\t"): escape = "\\t"
            case UInt8(ascii: "\r"): escape = "\\r"
            case 0..<0x20, 0x7F:
                let hex = String(byte, radix: 16, uppercase: true)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: continue
            }
            quoted.append(contentsOf: text.utf8[run..<index])
            quoted.append(contentsOf: escape.utf8)
            run = text.utf8.index(after: index)
        }
        quoted.append(contentsOf: text.utf8[run...])
        quoted.append(UInt8(ascii: "\""))
        return String(decoding: quoted, as: UTF8.self)
    }
}
