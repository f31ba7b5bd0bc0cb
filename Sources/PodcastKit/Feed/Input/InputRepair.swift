import PodcastText

/// Streams a document's bytes to libxml2 with two repairs, in one pass:
///
/// - UTF-8 (when asked for): each byte that is not part of a valid sequence becomes its
///   Windows-1252 character, which is what such bytes almost always are in feeds that do not
///   declare their encoding. Valid UTF-8 passes through untouched.
/// - References, outside CDATA sections and comments, so that libxml2 reads
///   every `&` the way a feed reader should:
///   - a bare `&` (not starting `&name;`, `&#N;` or `&#xH;`) becomes `&#38;`: libxml2's recovery
///     drops it together with text and references after it ("Fish & Chips &amp; more" lost words,
///     `url="…?a=1&b=2"` lost a query parameter);
///   - a named reference becomes numeric (`&amp;` → `&#38;`, `&eacute;` → `&#233;`, an unknown
///     name → the literal text): after its first recoverable error libxml2 stops emitting named
///     references at all, and in attribute values it copies only the first byte of an entity it
///     was given. Numeric references are read before either problem.
///
///   This works on any encoding where `&`, `;`, `<` and ASCII letters are single bytes (UTF-8,
///   Latin-1, Windows-125x, Shift_JIS, EUC, GB18030, Big5); not on UTF-16, UTF-32 or the
///   ISO-2022 family.
///
/// A construct split between two pieces (a UTF-8 sequence, a reference, the start of a CDATA
/// section) is held back and completed from the next one, so the result never depends on where
/// the pieces were cut. Runs of bytes that need nothing are skipped eight at a time, and a piece
/// that needs no repair is handed on as it is, without a copy.
struct InputRepair {
    private enum Mode {
        case markup, cdata, comment
    }

    private let repairsUTF8: Bool
    private var mode = Mode.markup
    /// Bytes held back because the construct they start may end in the next piece.
    private var pending: [UInt8] = []
    /// The held-back bytes followed by the next piece (reused between pieces).
    private var joined: [UInt8] = []
    /// The repaired bytes of the current piece, once it needed a repair (reused between pieces).
    private var output: [UInt8] = []

    /// The longest entity name considered; a longer run is not a reference.
    private static let maxNameLength = 32

    /// A repair of references, and of invalid UTF-8 when `utf8` is true (the document is meant to be UTF-8).
    init(utf8: Bool) {
        repairsUTF8 = utf8
    }

    /// Passes `input` on to `emit`, repaired, in one piece; with `final`, nothing is held back.
    mutating func process(_ input: UnsafeRawBufferPointer, final: Bool, emit: (UnsafeRawBufferPointer) -> Void) {
        if pending.isEmpty {
            scan(input, final: final, emit: emit)
        } else {
            joined.removeAll(keepingCapacity: true)
            joined.append(contentsOf: pending)
            joined.append(contentsOf: input)
            pending.removeAll(keepingCapacity: true)
            let bytes = joined
            joined = []
            bytes.withUnsafeBytes { scan($0, final: final, emit: emit) }
            joined = bytes
        }
    }

    /// Repairs `bytes` and emits them, up to the construct held back, if any.
    private mutating func scan(_ bytes: UnsafeRawBufferPointer, final: Bool, emit: (UnsafeRawBufferPointer) -> Void) {
        output.removeAll(keepingCapacity: true)
        var repaired = false
        // Bytes before `copied` are in `output` (once `repaired`); bytes from `end` are held back.
        var copied = 0
        var end = bytes.count
        var index = 0

        func replace(_ length: Int, with replacement: some Sequence<UInt8>) {
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[copied..<index]))
            output.append(contentsOf: replacement)
            repaired = true
            index += length
            copied = index
        }

        scanning: while true {
            index = skipPlainBytes(bytes, from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte >= 0x80 {
                switch utf8Sequence(bytes, at: index, final: final) {
                case .valid(let length): index += length
                case .invalid: replace(1, with: Windows1252.utf8(byte))
                case .undecided:
                    end = index
                    break scanning
                }
                continue
            }
            switch (mode, byte) {
            case (.markup, UInt8(ascii: "<")):
                if index + 1 < bytes.count && bytes[index + 1] != UInt8(ascii: "!") {
                    // A tag: only `<!` can start a section.
                    index += 1
                } else if !final && bytes.count - index < 9 && Self.couldStartSection(bytes, at: index) {
                    end = index
                    break scanning
                } else if Self.matches("<![CDATA[", in: bytes, at: index) {
                    mode = .cdata
                    index += 9
                } else if Self.matches("<!--", in: bytes, at: index) {
                    mode = .comment
                    index += 4
                } else {
                    index += 1
                }
            case (.markup, _):  // "&"
                switch Self.reference(in: bytes, at: index, final: final) {
                case .valid(let length):
                    let name = bytes[(index + 1)..<(index + length - 1)]
                    if name.first == UInt8(ascii: "#") {
                        index += length
                    } else {
                        replace(length, with: Self.numericForm(of: name))
                    }
                case .bare:
                    replace(1, with: Self.ampersand)
                case .undecided:
                    end = index
                    break scanning
                }
            case (.cdata, _), (.comment, _):  // "]" or "-"
                let terminator: StaticString = mode == .cdata ? "]]>" : "-->"
                if Self.matches(terminator, in: bytes, at: index) {
                    mode = .markup
                    index += 3
                } else if !final && bytes.count - index < 3 && Self.isPrefix(of: terminator, bytes, at: index) {
                    end = index
                    break scanning
                } else {
                    index += 1
                }
            }
        }
        if end < bytes.count { pending.append(contentsOf: bytes[end...]) }
        if !repaired {
            emit(UnsafeRawBufferPointer(rebasing: bytes[..<end]))
            return
        }
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[copied..<end]))
        output.withUnsafeBytes { emit($0) }
    }

    // MARK: Finding the next byte that matters

    /// The index of the first byte at or after `start` that a repair must look at in the current
    /// mode (or the end): `<` or `&` in markup, `]` in a CDATA section and `-` in a comment, and,
    /// when repairing UTF-8, a byte from 0x80 that does not start a whole valid sequence. Valid
    /// sequences are checked here, in the same pass: the text is validated once, on its way in.
    private func skipPlainBytes(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let (first, second): (UInt8, UInt8)
        switch mode {
        case .markup: (first, second) = (UInt8(ascii: "<"), UInt8(ascii: "&"))
        case .cdata: (first, second) = (UInt8(ascii: "]"), UInt8(ascii: "]"))
        case .comment: (first, second) = (UInt8(ascii: "-"), UInt8(ascii: "-"))
        }
        var index = start
        // Eight bytes at a time, straight to the first byte that matters among them: a sequence
        // there is checked whole, and the next eight start after it.
        while index + 8 <= bytes.count {
            guard let offset = ByteWord(bytes, at: index).firstOffset(of: first, second, orNonASCII: repairsUTF8) else {
                index += 8
                continue
            }
            index += offset
            if bytes[index] < 0x80 { return index }
            let length = Self.validSequenceLength(bytes, at: index)
            guard length > 0 else { return index }
            index += length
        }
        // The last few bytes one by one.
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                if byte == first || byte == second { return index }
                index += 1
            } else if !repairsUTF8 {
                index += 1
            } else {
                let length = Self.validSequenceLength(bytes, at: index)
                guard length > 0 else { return index }
                index += length
            }
        }
        return index
    }

    /// The length of the valid UTF-8 sequence at `index` (whose first byte is 0x80 or more), or 0
    /// when it is invalid or cut off by the end of `bytes`: no overlongs, surrogates or values
    /// past U+10FFFF.
    @inline(__always)
    private static func validSequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        func isContinuation(_ offset: Int) -> Bool { bytes[index + offset] & 0xC0 == 0x80 }
        let lead = bytes[index]
        switch lead {
        case 0xC2...0xDF:
            return index + 1 < bytes.count && isContinuation(1) ? 2 : 0
        case 0xE0...0xEF:
            guard index + 2 < bytes.count else { return 0 }
            let second = bytes[index + 1]
            let secondValid = lead == 0xE0 ? second >= 0xA0 && second <= 0xBF
                : lead == 0xED ? second >= 0x80 && second <= 0x9F : second & 0xC0 == 0x80
            return secondValid && isContinuation(2) ? 3 : 0
        case 0xF0...0xF4:
            guard index + 3 < bytes.count else { return 0 }
            let second = bytes[index + 1]
            let secondValid = lead == 0xF0 ? second >= 0x90 && second <= 0xBF
                : lead == 0xF4 ? second >= 0x80 && second <= 0x8F : second & 0xC0 == 0x80
            return secondValid && isContinuation(2) && isContinuation(3) ? 4 : 0
        default:
            return 0
        }
    }

    // MARK: UTF-8

    private enum UTF8Sequence {
        case valid(length: Int)
        case invalid
        /// Cut off by the end of the piece, and possibly completed by the next one.
        case undecided
    }

    /// What the bytes from `index` (whose first is 0x80 or more) are as UTF-8.
    private func utf8Sequence(_ bytes: UnsafeRawBufferPointer, at index: Int, final: Bool) -> UTF8Sequence {
        let length = Self.sequenceLength(bytes[index])
        guard length > 1 else { return .invalid }
        if index + length > bytes.count {
            return !final && Self.isValidPrefix(bytes[index...]) ? .undecided : .invalid
        }
        return Self.isValid(bytes[index..<(index + length)]) ? .valid(length: length) : .invalid
    }

    /// The length a sequence starting with `lead` claims (0 for a continuation or invalid lead).
    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 0
        }
    }

    /// Whether `bytes` (one whole sequence) is valid UTF-8: no overlongs, surrogates or values past U+10FFFF.
    private static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        guard let lead = iterator.next(), let second = iterator.next() else { return false }
        let secondRange: ClosedRange<UInt8> = switch lead {
        case 0xE0: 0xA0...0xBF
        case 0xED: 0x80...0x9F
        case 0xF0: 0x90...0xBF
        case 0xF4: 0x80...0x8F
        default: 0x80...0xBF
        }
        guard secondRange.contains(second) else { return false }
        while let next = iterator.next() {
            guard next & 0xC0 == 0x80 else { return false }
        }
        return true
    }

    /// Whether an incomplete tail could still become a valid sequence.
    private static func isValidPrefix(_ bytes: Slice<UnsafeRawBufferPointer>) -> Bool {
        var padded = Array(bytes)
        let length = sequenceLength(padded[0])
        guard length > 1 else { return false }
        // Complete it with the smallest continuation that keeps the lead's constraints.
        let second: UInt8 = padded[0] == 0xE0 ? 0xA0 : padded[0] == 0xF0 ? 0x90 : 0x80
        while padded.count < length { padded.append(padded.count == 1 ? second : 0x80) }
        return isValid(padded)
    }

    // MARK: References

    /// A literal `&` that libxml2 reads in any state.
    private static let ampersand = Array("&#38;".utf8)

    /// `&#N;` for each character of the named reference `name` (between `&` and `;`), or, for a
    /// name that is neither XML's nor HTML's, the reference as literal text.
    private static func numericForm(of name: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
        // XML's own five come first, compared as one word: they are nearly every reference a feed holds.
        if name.count <= 4 {
            switch name.reduce(UInt32(0), { $0 << 8 | UInt32($1) }) {
            case 0x6C74: return lessThan  // "lt"
            case 0x6774: return greaterThan  // "gt"
            case 0x61_6D70: return ampersand  // "amp"
            case 0x7175_6F74: return quote  // "quot"
            case 0x6170_6F73: return apostrophe  // "apos"
            default: break
            }
        }
        guard let scalar = HTMLEntities.scalar(named: name) else { return ampersand + Array(name) + [UInt8(ascii: ";")] }
        return Array("&#\(scalar.value);".utf8)
    }

    private static let lessThan = Array("&#60;".utf8)
    private static let greaterThan = Array("&#62;".utf8)
    private static let quote = Array("&#34;".utf8)
    private static let apostrophe = Array("&#39;".utf8)

    private enum Reference {
        case valid(length: Int)
        case bare
        case undecided
    }

    /// Whether the `&` at `start` begins a character or entity reference.
    private static func reference(in bytes: UnsafeRawBufferPointer, at start: Int, final: Bool) -> Reference {
        var index = start + 1
        let numeric = index < bytes.count && bytes[index] == UInt8(ascii: "#")
        if numeric { index += 1 }
        let hex = numeric && index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "x")
        if hex { index += 1 }
        let firstNameByte = index
        while index < bytes.count, index - start <= maxNameLength + 3 {
            let byte = bytes[index]
            if byte == UInt8(ascii: ";") {
                return index > firstNameByte ? .valid(length: index - start + 1) : .bare
            }
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            let allowed: Bool = if hex {
                isDigit || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
            } else if numeric {
                isDigit
            } else if index == firstNameByte {
                isLetter || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
            } else {
                isLetter || isDigit || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
            guard allowed else { return .bare }
            index += 1
        }
        return index < bytes.count || final ? .bare : .undecided
    }

    // MARK: Matching

    private static func matches(_ text: StaticString, in bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
    }

    /// True when the bytes from `index` to the end are the start of `text`.
    private static func isPrefix(of text: StaticString, _ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
        text.withUTF8Buffer { $0.starts(with: bytes[index...]) }
    }

    /// True when the bytes from `index` to the end could be the start of `<![CDATA[` or `<!--`.
    private static func couldStartSection(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
        isPrefix(of: "<![CDATA[", bytes, at: index) || isPrefix(of: "<!--", bytes, at: index)
    }
}
