/// Hands libxml2 the text of elements as CDATA sections, references decoded, wherever a section
/// reads exactly as the text would have. libxml2 2.9 reads text that holds references or
/// non-ASCII characters one character at a time, and delivers each reference, and each stretch
/// between two, in a callback of its own (escaped HTML show notes make dozens an item); a CDATA
/// section it checks in one pass and delivers in one callback. On a multilingual feed that was a
/// fifth of the parsing thread's work; this stage runs before it, on `RepairThread`'s core for a
/// long document.
///
/// Rewritten: the text right after a start tag, up to the next `<`, when it holds a reference or
/// a non-ASCII character and reads the same as a section: each reference is a character from
/// U+0020 that XML allows (a line end or tab by reference is counted or kept differently), the
/// text holds no control character, carriage return (normalized in text, not in sections) or
/// non-character, no `]]>` once decoded, and the section ends its line no later than the text
/// would have (a comment fills what it leaves short: libxml2 reports the columns of later problems
/// on the line as before). Everything else passes as it is: comments, CDATA
/// sections, processing instructions, attribute values, text after end tags. Start tags are
/// followed by their grammar; from a DOCTYPE, or a start tag that breaks the grammar (libxml2's
/// recovery from it cannot be foreseen), the rest of the document passes untouched.
///
/// Works on UTF-8 after `InputRepair`, where every reference in text is numeric. A text or a
/// construct split between two pieces is held back and completed from the next one, so the
/// result never depends on where the pieces were cut; a text longer than `maxText` passes as it is.
struct TextSections {
    private enum State {
        /// Content after an end tag, or before or after the root element.
        case outside
        /// In a start tag.
        case startTag(TagPart)
        /// In the text that follows a start tag (held back from its start until it ends).
        case text
        /// In text too long to hold back: passed as it is, up to the next `<`.
        case longText
        /// In a comment, CDATA section, processing instruction or end tag, up to its end.
        case passing(Terminator)
        /// After a DOCTYPE or a start tag this stage cannot follow: everything passes.
        case off
    }

    /// Where a start tag is in its grammar: `<name (S attribute S? = S? "value")* S? /? >`.
    private enum TagPart: Equatable {
        case name, space, attributeName, beforeEquals, afterEquals, afterValue, slash
        case value(quote: UInt8)
    }

    private enum Terminator {
        case comment, cdata, instruction, endTag

        var text: StaticString {
            switch self {
            case .comment: "-->"
            case .cdata: "]]>"
            case .instruction: "?>"
            case .endTag: ">"
            }
        }
    }

    private var state = State.outside
    /// Bytes held back because the construct they start may end in the next piece.
    private var pending: [UInt8] = []
    /// The held-back bytes followed by the next piece (reused between pieces).
    private var joined: [UInt8] = []
    /// The rewritten bytes of the current piece, once it needed a rewrite (reused between pieces).
    private var output: [UInt8] = []

    /// The longest text held back to be rewritten; real texts are a few KiB.
    static let maxText = 64 * 1024

    private static let sectionStart = Array("<![CDATA[".utf8)
    private static let sectionEnd = Array("]]>".utf8)

    /// Passes `input` on to `emit`, rewritten, in one piece; with `final`, nothing is held back.
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

    /// Rewrites the texts in `bytes` and emits them, up to the construct held back, if any.
    private mutating func scan(_ bytes: UnsafeRawBufferPointer, final: Bool, emit: (UnsafeRawBufferPointer) -> Void) {
        output.removeAll(keepingCapacity: true)
        var rewritten = false
        // Bytes before `copied` are in `output` (once `rewritten`); bytes from `end` are held back.
        var copied = 0
        var end = bytes.count
        var index = 0
        // A text held back from the last piece starts this one.
        var textStart = 0

        scanning: while index < bytes.count {
            switch state {
            case .off:
                index = bytes.count
            case .outside, .longText:
                index = Self.find(UInt8(ascii: "<"), in: bytes, from: index)
                guard index < bytes.count else { break }
                // `<![CDATA[` is the longest start told apart here.
                if !final && bytes.count - index < 9 {
                    end = index
                    break scanning
                }
                index = markup(bytes, at: index)
                textStart = index
            case .passing(let terminator):
                let found = Self.find(terminator.text, in: bytes, from: index)
                guard found < bytes.count || final else {
                    // The terminator may be cut: its first bytes are looked at again with the next piece.
                    end = max(index, bytes.count - (terminator.text.utf8CodeUnitCount - 1))
                    break scanning
                }
                index = min(found + terminator.text.utf8CodeUnitCount, bytes.count)
                state = .outside
            case .startTag(let part):
                (state, index) = Self.readTag(bytes, from: index, at: part)
                textStart = index
            case .text:
                let text = Self.readText(bytes, from: textStart)
                guard text.end < bytes.count else {
                    if final {
                        index = bytes.count
                    } else if bytes.count - textStart > Self.maxText {
                        state = .longText
                        index = bytes.count
                    } else {
                        end = textStart
                        break scanning
                    }
                    break
                }
                if text.worthASection {
                    output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[copied..<textStart]))
                    copied = textStart
                    let lastLine = (start: text.lastLine - textStart, columns: text.lastLineColumns)
                    if appendSection(UnsafeRawBufferPointer(rebasing: bytes[textStart..<text.end]), lastLine: lastLine) {
                        rewritten = true
                        copied = text.end
                    }
                }
                index = text.end
                state = .outside
            }
        }
        if end < bytes.count { pending.append(contentsOf: bytes[end...]) }
        if !rewritten {
            emit(UnsafeRawBufferPointer(rebasing: bytes[..<end]))
            return
        }
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[copied..<end]))
        output.withUnsafeBytes { emit($0) }
    }

    // MARK: Markup

    /// Takes in the `<` at `index` (with at least nine bytes from it, or the document's end) and
    /// what it starts; returns the index after what was read of it.
    private mutating func markup(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let next = index + 1 < bytes.count ? bytes[index + 1] : 0
        switch next {
        case UInt8(ascii: "!"):
            if Self.matches("<!--", bytes, at: index) {
                state = .passing(.comment)
                return index + 4
            }
            if Self.matches("<![CDATA[", bytes, at: index) {
                state = .passing(.cdata)
                return index + 9
            }
            // A DOCTYPE: what its declarations hold is no text.
            state = .off
        case UInt8(ascii: "?"):
            state = .passing(.instruction)
        case UInt8(ascii: "/"):
            state = .passing(.endTag)
        default:
            state = Self.isNameStart(next) ? .startTag(.name) : .off
        }
        return index + 2
    }

    /// Reads a start tag at `part` from `start` until it ends (or `bytes` do); returns the state
    /// then and the index after what was read.
    private static func readTag(_ bytes: UnsafeRawBufferPointer, from start: Int, at part: TagPart) -> (State, Int) {
        var index = start
        var part = part
        while index < bytes.count {
            if part == .name || part == .attributeName {
                while index < bytes.count && isNameByte(bytes[index]) { index += 1 }
                guard index < bytes.count else { break }
            } else if case .value(let quote) = part {
                // Attribute values are most of a tag: skipped to their quote eight bytes at a time.
                while index + 8 <= bytes.count {
                    let word = ByteWord(bytes, at: index)
                    if word.contains(quote) || word.contains(UInt8(ascii: "<")) { break }
                    index += 8
                }
                guard index < bytes.count else { break }
            }
            let state = next(after: part, bytes[index])
            index += 1
            guard case .startTag(let nextPart) = state else { return (state, index) }
            part = nextPart
        }
        return (.startTag(part), index)
    }

    /// The state after `byte` in a start tag at `part`.
    private static func next(after part: TagPart, _ byte: UInt8) -> State {
        let isSpace = byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
        switch part {
        case .name, .attributeName:
            if isNameByte(byte) { return .startTag(part) }
            if isSpace { return .startTag(part == .name ? .space : .beforeEquals) }
            if part == .attributeName { return byte == UInt8(ascii: "=") ? .startTag(.afterEquals) : .off }
            return tagEnd(byte)
        case .space, .afterValue:
            if isSpace { return .startTag(.space) }
            if part == .space && isNameStart(byte) { return .startTag(.attributeName) }
            return tagEnd(byte)
        case .beforeEquals:
            if isSpace { return .startTag(part) }
            return byte == UInt8(ascii: "=") ? .startTag(.afterEquals) : .off
        case .afterEquals:
            if isSpace { return .startTag(part) }
            return byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") ? .startTag(.value(quote: byte)) : .off
        case .value(let quote):
            if byte == quote { return .startTag(.afterValue) }
            return byte == UInt8(ascii: "<") ? .off : .startTag(part)
        case .slash:
            return byte == UInt8(ascii: ">") ? .outside : .off
        }
    }

    /// The state after `byte` where a start tag may end: its text after `>`, an empty element after `/>`.
    private static func tagEnd(_ byte: UInt8) -> State {
        switch byte {
        case UInt8(ascii: ">"): .text
        case UInt8(ascii: "/"): .startTag(.slash)
        default: .off
        }
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        let letter = byte | 0x20
        return (letter >= UInt8(ascii: "a") && letter <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ":") || byte >= 0x80
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    // MARK: Texts

    /// What `readText` learns of a text.
    private struct TextReading {
        /// Where the text ends: its `<`, or the end of the bytes.
        var end: Int
        /// Whether it holds a reference or a non-ASCII character, and no character that reads
        /// differently in a section (a control character, a carriage return, U+FFFE or U+FFFF).
        var worthASection: Bool
        /// Where its last line starts, and how many columns libxml2 counts on it (one a character).
        var lastLine: Int
        var lastLineColumns: Int
    }

    /// Reads the text from `start` to its end.
    private static func readText(_ bytes: UnsafeRawBufferPointer, from start: Int) -> TextReading {
        var worthIt = false
        var unfit = false
        var lastLine = start
        // Bytes that continue a UTF-8 sequence on the last line: they start no column.
        var continuations = 0
        var index = start
        while index < bytes.count {
            if index + 8 <= bytes.count {
                // Eight bytes at a time while none of them ends the text, a line or a fit.
                let word = ByteWord(bytes, at: index)
                if !word.contains(UInt8(ascii: "<")) && !word.containsByte(below: 0x20) && !word.contains(0xEF) {
                    worthIt = worthIt || word.containsNonASCII || word.contains(UInt8(ascii: "&"))
                    continuations += word.continuationCount
                    index += 8
                    continue
                }
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "<"):
                return TextReading(
                    end: index, worthASection: worthIt && !unfit, lastLine: lastLine,
                    lastLineColumns: index - lastLine - continuations)
            case UInt8(ascii: "&"):
                worthIt = true
            case 0x80...:
                worthIt = true
                if byte & 0xC0 == 0x80 { continuations += 1 }
                // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are no XML characters.
                if byte == 0xEF && index + 2 < bytes.count && bytes[index + 1] == 0xBF && bytes[index + 2] >= 0xBE {
                    unfit = true
                }
            case 0x0A:
                lastLine = index + 1
                continuations = 0
            case 0x09:
                break
            case ..<0x20:
                unfit = true
            default:
                break
            }
            index += 1
        }
        return TextReading(end: index, worthASection: false, lastLine: lastLine, lastLineColumns: 0)
    }

    /// Appends `text` as a CDATA section, its references decoded; false (and nothing appended)
    /// when a reference is not a character the section can hold, the decoded text holds `]]>`,
    /// or the section would end its line past the text (`lastLine`: where the text's last line
    /// starts, and its columns).
    ///
    /// libxml2 counts a column per character in text and per byte in a section, and starts each
    /// line at column 1 (the lines are the same: no reference that is a line end is decoded). A
    /// section that ends its line short of the text is followed by a comment that makes up the
    /// difference: the columns of later problems libxml2 reports on the line stay as they were.
    private mutating func appendSection(_ text: UnsafeRawBufferPointer, lastLine: (start: Int, columns: Int)) -> Bool {
        let start = output.count
        output.append(contentsOf: Self.sectionStart)
        let contentStart = output.count
        // Bytes the decoding saved on the text's last line.
        var saved = 0
        var copied = 0
        var index = 0
        var fits = true
        while index < text.count {
            index = Self.find(UInt8(ascii: "&"), in: text, from: index)
            guard index < text.count else { break }
            guard let (scalar, length) = Self.characterReference(text, at: index) else {
                fits = false
                break
            }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[copied..<index]))
            let written = output.count
            if scalar.isASCII { output.append(UInt8(scalar.value)) } else { UTF8.encode(scalar) { output.append($0) } }
            if index >= lastLine.start { saved += length - (output.count - written) }
            index += length
            copied = index
        }
        if fits {
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[copied...]))
            fits = output.withUnsafeBytes { Self.find("]]>", in: UnsafeRawBufferPointer(rebasing: $0[contentStart...]), from: 0) }
                == output.count - contentStart
        }
        let sectionColumns = (lastLine.start == 0 ? Self.sectionStart.count : 0) + (text.count - lastLine.start - saved)
            + Self.sectionEnd.count
        let padding = lastLine.columns - sectionColumns
        guard fits, padding == 0 || padding >= Self.emptyComment.count else {
            output.removeSubrange(start...)
            return false
        }
        output.append(contentsOf: Self.sectionEnd)
        if padding > 0 {
            output.append(contentsOf: Self.emptyComment.prefix(4))
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: padding - Self.emptyComment.count))
            output.append(contentsOf: Self.emptyComment.suffix(3))
        }
        return true
    }

    private static let emptyComment = Array("<!---->".utf8)

    /// The character of the numeric reference at `index` (`&#233;`, `&#xE9;`) and its length,
    /// when it is one a section can hold in its place: from U+0020, and allowed in XML.
    private static func characterReference(_ bytes: UnsafeRawBufferPointer, at start: Int) -> (Unicode.Scalar, Int)? {
        var index = start + 1
        guard index < bytes.count, bytes[index] == UInt8(ascii: "#") else { return nil }
        index += 1
        // Only a lowercase x: libxml2 rejects `&#X…;`, and the text keeps it for libxml2 to say so.
        let hex = index < bytes.count && bytes[index] == UInt8(ascii: "x")
        if hex { index += 1 }
        let digitsStart = index
        var value: UInt32 = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: ";") {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value * (hex ? 16 : 10) + digit
            guard value <= 0x10FFFF else { return nil }
            index += 1
        }
        guard index < bytes.count, index > digitsStart, value >= 0x20, value != 0xFFFE, value != 0xFFFF,
            let scalar = Unicode.Scalar(value)
        else { return nil }
        return (scalar, index - start + 1)
    }

    // MARK: Matching

    /// The index of the first `byte` at or after `start`, or the end of `bytes`.
    private static func find(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        while index + 8 <= bytes.count && !ByteWord(bytes, at: index).contains(byte) { index += 8 }
        while index < bytes.count && bytes[index] != byte { index += 1 }
        return index
    }

    /// The index of the first `text` at or after `start`, or the end of `bytes`.
    private static func find(_ text: StaticString, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let first = text.utf8Start.pointee
        var index = find(first, in: bytes, from: start)
        while index < bytes.count && !matches(text, bytes, at: index) {
            index = find(first, in: bytes, from: index + 1)
        }
        return index
    }

    private static func matches(_ text: StaticString, _ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
    }
}
