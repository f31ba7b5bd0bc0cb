/// What the text path needs to know of a character: white space (folded or trimmed), a control
/// character (replaced), a bidirectional control (stripped before text reaches a terminal), or
/// anything else. Answered from UTF-8 bytes with small tables, not with Unicode property
/// look-ups, which cost more than the rest of the work on text that is not ASCII.
///
/// Every white space and control character is in ASCII, Latin-1 (U+0080–U+00FF) or General
/// Punctuation (U+2000–U+206F, with the superscripts to U+207F: the characters whose UTF-8
/// starts E2 80 or E2 81), which have tables, but for U+1680 and U+3000: every other character
/// is `visible`. Tests hold the tables to Swift's properties for every scalar.
public enum ScalarKind: UInt8, Sendable {
    /// Neither white space nor a control of either kind.
    case visible
    /// Unicode's `White_Space`, which includes tab, newline and U+0085.
    case whitespace
    /// A control character (general category Cc) that is not white space.
    case control
    /// An embedding, override or isolate (U+202A–U+202E, U+2066–U+2069): it reorders the text
    /// around it on a terminal (a U+202E in a title turns the rest of a table row around).
    case bidiControl

    /// The kind of `scalar`.
    public static func of(_ scalar: Unicode.Scalar) -> ScalarKind {
        let value = Int(scalar.value)
        switch value {
        case 0..<0x80: return ascii[value]
        case 0x80..<0x100: return latin1[value - 0x80]
        case 0x2000..<0x2080: return generalPunctuation[value - 0x2000]
        case 0x1680, 0x3000: return .whitespace
        default: return .visible
        }
    }

    /// The kind of the character whose UTF-8 encoding starts at `index` of the valid UTF-8
    /// `bytes`, and the length of that encoding.
    @inline(__always)
    public static func at(_ index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (kind: ScalarKind, length: Int) {
        let lead = bytes[index]
        if lead < 0x80 { return (ascii[Int(lead)], 1) }
        if lead < 0xE0 {
            // Two bytes; only C2 and C3 lead Latin-1.
            guard lead <= 0xC3, index + 1 < bytes.count else { return (.visible, 2) }
            return (latin1[Int(lead & 0x01) << 6 | Int(bytes[index + 1] & 0x3F)], 2)
        }
        if lead >= 0xF0 { return (.visible, 4) }
        guard lead == 0xE2 || lead == 0xE1 || lead == 0xE3, index + 2 < bytes.count else { return (.visible, 3) }
        let second = bytes[index + 1]
        let third = bytes[index + 2]
        switch lead {
        case 0xE2 where second == 0x80 || second == 0x81:
            return (generalPunctuation[Int(second & 0x01) << 6 | Int(third & 0x3F)], 3)
        case 0xE1 where second == 0x9A && third == 0x80, 0xE3 where second == 0x80 && third == 0x80:
            // U+1680 OGHAM SPACE MARK and U+3000 IDEOGRAPHIC SPACE.
            return (.whitespace, 3)
        default:
            return (.visible, 3)
        }
    }

    private static let ascii: [ScalarKind] = (0..<0x80).map { value in
        switch value {
        case 0x09...0x0D, 0x20: .whitespace
        case 0..<0x20, 0x7F: .control
        default: .visible
        }
    }

    private static let latin1: [ScalarKind] = (0x80..<0x100).map { value in
        switch value {
        case 0x85, 0xA0: .whitespace
        case 0x80...0x9F: .control
        default: .visible
        }
    }

    private static let generalPunctuation: [ScalarKind] = (0x2000..<0x2080).map { value in
        switch value {
        case 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F: .whitespace
        case 0x202A...0x202E, 0x2066...0x2069: .bidiControl
        default: .visible
        }
    }
}
