/// TOML's four kinds of string: basic (`"…"`, with escapes), literal (`'…'`, as written) and
/// their multi-line forms (`"""…"""`, `'''…'''`). Text is gathered as bytes, already checked as
/// UTF-8, and becomes a `String` once.
extension TOMLScanner {
    /// Reads the string at the next byte (`"` or `'`); `multiline` says whether the triple-quoted
    /// forms are allowed here (they are not in keys).
    mutating func readString(multiline: Bool) throws(TOMLError) -> String {
        let start = position
        let delimiter = current ?? .quote
        let isTriple = peek(1) == delimiter && peek(2) == delimiter
        if isTriple {
            guard multiline else { throw error("a key cannot be a multi-line string") }
            advance(by: 3)
        } else {
            advance()
        }
        var text: [UInt8] = []
        switch (delimiter == .quote, isTriple) {
        case (true, false): try readBasic(into: &text, from: start)
        case (false, false): try readLiteral(into: &text, from: start)
        case (true, true): try readMultiline(into: &text, from: start, escapes: true)
        case (false, true): try readMultiline(into: &text, from: start, escapes: false)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The rest of a one-line basic string, up to and past its closing `"`.
    private mutating func readBasic(into text: inout [UInt8], from start: Position) throws(TOMLError) {
        while true {
            let runStart = offset
            while let byte = current, byte >= 0x20, byte != .quote, byte != .backslash, byte != 0x7F {
                try skipCharacter(in: "a string")
            }
            text.append(contentsOf: bytes[runStart..<offset])
            switch current {
            case .quote:
                advance()
                return
            case .backslash:
                try readEscape(into: &text)
            case .tab:
                text.append(.tab)
                advance()
            case nil, .lineFeed, .carriageReturn:
                throw unclosed("string", start)
            default:
                try skipCharacter(in: "a string")
            }
        }
    }

    /// The rest of a one-line literal string, up to and past its closing `'`.
    private mutating func readLiteral(into text: inout [UInt8], from start: Position) throws(TOMLError) {
        let runStart = offset
        while let byte = current, byte != .apostrophe, byte != .lineFeed, byte != .carriageReturn {
            try skipCharacter(in: "a literal string")
        }
        guard current == .apostrophe else { throw unclosed("literal string", start) }
        text.append(contentsOf: bytes[runStart..<offset])
        advance()
    }

    /// The rest of a multi-line string, up to and past its closing triple quote. A line break
    /// right after the opening quotes is dropped; line breaks are kept as LF; up to two quotes
    /// may stand just before the closing three; with `escapes`, a backslash ending a line trims
    /// the whitespace and line breaks after it.
    private mutating func readMultiline(into text: inout [UInt8], from start: Position, escapes: Bool) throws(TOMLError) {
        let delimiter: UInt8 = escapes ? .quote : .apostrophe
        let place = escapes ? "a multi-line string" : "a multi-line literal string"
        _ = try skipNewline()
        while let byte = current {
            switch byte {
            case delimiter:
                var run = 0
                while peek(run) == delimiter, run < 5 { run += 1 }
                advance(by: run)
                if run >= 3 {
                    text.append(contentsOf: repeatElement(delimiter, count: run - 3))
                    return
                }
                text.append(contentsOf: repeatElement(delimiter, count: run))
            case .backslash where escapes:
                try readEscape(into: &text, trimsLineEnd: true)
            case .lineFeed, .carriageReturn:
                _ = try skipNewline()
                text.append(.lineFeed)
            default:
                let runStart = offset
                try skipCharacter(in: place)
                text.append(contentsOf: bytes[runStart..<offset])
            }
        }
        throw unclosed(escapes ? "multi-line string" : "multi-line literal string", start)
    }

    /// One escape after a `\`: `\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX`; in a multi-line string
    /// (`trimsLineEnd`) also a backslash that ends its line.
    private mutating func readEscape(into text: inout [UInt8], trimsLineEnd: Bool = false) throws(TOMLError) {
        let start = position
        advance()
        if trimsLineEnd, try skipLineEndingBackslash() { return }
        guard let letter = current else { throw unclosed("string", start) }
        let replacement: UInt8
        switch letter {
        case 0x62: replacement = 0x08  // b
        case 0x74: replacement = .tab  // t
        case 0x6E: replacement = .lineFeed  // n
        case 0x66: replacement = 0x0C  // f
        case 0x72: replacement = .carriageReturn  // r
        case .quote, .backslash: replacement = letter
        case 0x75, 0x55:  // u, U
            advance()
            try readUnicodeEscape(digits: letter == 0x75 ? 4 : 8, into: &text, from: start)
            return
        default:
            let shown = letter >= 0x21 && letter <= 0x7E ? "\\" + String(UnicodeScalar(letter)) : "\\ followed by \(found)"
            throw error("\"\(shown)\" is not an escape; write \\\\ for a backslash", at: start)
        }
        text.append(replacement)
        advance()
    }

    /// After the `\` of a multi-line basic string: if only whitespace is left on the line, skips
    /// it, the line break and every whitespace and line break after, and says so.
    private mutating func skipLineEndingBackslash() throws(TOMLError) -> Bool {
        var distance = 0
        while let byte = peek(distance), byte == .space || byte == .tab { distance += 1 }
        guard peek(distance) == .lineFeed || (peek(distance) == .carriageReturn && peek(distance + 1) == .lineFeed) else {
            return false
        }
        while true {
            skipWhitespace()
            guard try skipNewline() else { return true }
        }
    }

    /// The hex digits of `\u` or `\U`, appended as the scalar they name.
    private mutating func readUnicodeEscape(digits: Int, into text: inout [UInt8], from start: Position) throws(TOMLError) {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let byte = current, let digit = Self.hexValue(byte) else {
                throw error("\\\(digits == 4 ? "u" : "U") needs \(digits) hexadecimal digits", at: start)
            }
            value = value << 4 | UInt32(digit)
            advance()
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw error("\(Self.codePoint(value)) is not a Unicode scalar value", at: start)
        }
        text.append(contentsOf: String(scalar).utf8)
    }

    /// The value of a hexadecimal digit (either case), nil for other bytes.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// The error for a `kind` opened at `start` and not closed.
    private func unclosed(_ kind: String, _ start: Position) -> TOMLError {
        error("the \(kind) opened on line \(start.line), column \(start.column) is not closed")
    }
}
