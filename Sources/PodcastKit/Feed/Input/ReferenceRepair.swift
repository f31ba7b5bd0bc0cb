/// Streams a document's bytes, outside CDATA sections and comments, so that libxml2 reads every
/// `&` the way a feed reader should:
/// - a bare `&` (not starting `&name;`, `&#N;` or `&#xH;`) becomes `&#38;`: libxml2's recovery
///   drops it together with text and references after it ("Fish & Chips &amp; more" lost words,
///   `url="…?a=1&b=2"` lost a query parameter);
/// - a named reference becomes numeric (`&amp;` → `&#38;`, `&eacute;` → `&#233;`, an unknown
///   name → the literal text): after its first recoverable error libxml2 stops emitting named
///   references at all, and in attribute values it copies only the first byte of an entity it was
///   given. Numeric references are read before either problem.
///
/// Works on any encoding where `&`, `;`, `<` and ASCII letters are single bytes (UTF-8, Latin-1,
/// Windows-125x, Shift_JIS, EUC, GB18030, Big5); not on UTF-16, UTF-32 or the ISO-2022 family.
struct ReferenceRepair {
    private enum Mode {
        case markup, cdata, comment
    }

    private var mode = Mode.markup
    /// Bytes held back because the construct they start may end in the next piece.
    private var pending: [UInt8] = []
    /// The repaired bytes of the current piece, handed on in one go (reused between pieces).
    private var output: [UInt8] = []

    /// The longest entity name considered; a longer run is not a reference.
    private static let maxNameLength = 32

    /// Passes `input` on to `emit`, repaired, in one piece; with `final`, nothing is held back.
    mutating func process(_ input: UnsafeRawBufferPointer, final: Bool, emit: (UnsafeRawBufferPointer) -> Void) {
        output.removeAll(keepingCapacity: true)
        if pending.isEmpty {
            scan(input, final: final)
        } else {
            var joined = pending
            joined.append(contentsOf: input)
            pending.removeAll(keepingCapacity: true)
            joined.withUnsafeBytes { scan($0, final: final) }
        }
        output.withUnsafeBytes { emit($0) }
    }

    private mutating func scan(_ bytes: UnsafeRawBufferPointer, final: Bool) {
        func emit(_ piece: UnsafeRawBufferPointer) { output.append(contentsOf: piece) }
        var flushed = 0
        var index = 0
        let count = bytes.count
        while index < count {
            switch mode {
            case .cdata, .comment:
                let terminator: [UInt8] = mode == .cdata ? [0x5D, 0x5D, 0x3E] : [0x2D, 0x2D, 0x3E]  // "]]>" or "-->"
                guard let end = Self.find(terminator, in: bytes, from: index) else {
                    // A terminator may be split over the boundary: keep the last two bytes back.
                    let keep = final ? count : max(index, count - 2)
                    emit(UnsafeRawBufferPointer(rebasing: bytes[flushed..<keep]))
                    if keep < count { pending.append(contentsOf: bytes[keep...]) }
                    return
                }
                index = end + terminator.count
                mode = .markup
            case .markup:
                let byte = bytes[index]
                if byte == UInt8(ascii: "<") {
                    if !final && count - index < 9 && Self.couldStartSection(bytes, at: index) {
                        emit(UnsafeRawBufferPointer(rebasing: bytes[flushed..<index]))
                        pending.append(contentsOf: bytes[index...])
                        return
                    }
                    if Self.matches("<![CDATA[", in: bytes, at: index) {
                        mode = .cdata
                        index += 9
                    } else if Self.matches("<!--", in: bytes, at: index) {
                        mode = .comment
                        index += 4
                    } else {
                        index += 1
                    }
                } else if byte == UInt8(ascii: "&") {
                    switch Self.reference(in: bytes, at: index, final: final) {
                    case .valid(let length):
                        let name = bytes[(index + 1)..<(index + length - 1)]
                        if name.first != UInt8(ascii: "#") {
                            emit(UnsafeRawBufferPointer(rebasing: bytes[flushed..<index]))
                            output.append(contentsOf: Self.numericForm(of: name))
                            flushed = index + length
                        }
                        index += length
                    case .bare:
                        emit(UnsafeRawBufferPointer(rebasing: bytes[flushed..<index]))
                        output.append(contentsOf: Self.ampersand)
                        index += 1
                        flushed = index
                    case .undecided:
                        emit(UnsafeRawBufferPointer(rebasing: bytes[flushed..<index]))
                        pending.append(contentsOf: bytes[index...])
                        return
                    }
                } else {
                    index += 1
                }
            }
        }
        emit(UnsafeRawBufferPointer(rebasing: bytes[flushed..<count]))
    }

    /// A literal `&` that libxml2 reads in any state.
    private static let ampersand = Array("&#38;".utf8)

    /// `&#N;` for each character of the named reference `name` (between `&` and `;`), or, for a
    /// name that is neither XML's nor HTML's, the reference as literal text.
    private static func numericForm(of name: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
        let text = String(decoding: name, as: UTF8.self)
        // HTML's table includes XML's five (amp, lt, gt, quot, apos).
        let characters = HTMLEntities.character(named: text)
        guard let characters else { return ampersand + Array(name) + [UInt8(ascii: ";")] }
        return characters.unicodeScalars.flatMap { Array("&#\($0.value);".utf8) }
    }

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

    private static func matches(_ text: StaticString, in bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
    }

    /// True when the bytes from `index` to the end could be the start of `<![CDATA[` or `<!--`.
    private static func couldStartSection(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
        let tail = bytes[index...]
        return "<![CDATA[".utf8.starts(with: tail) || "<!--".utf8.starts(with: tail)
    }

    private static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], bytes[index + 1] == needle[1], bytes[index + 2] == needle[2] { return index }
            index += 1
        }
        return nil
    }
}
