/// Reads a TOML document's UTF-8 bytes one at a time, keeping the line and column of the next
/// byte, so that every error can say where it is without a second pass over the text. The
/// grammar lives in `TOMLParser`; the scanner knows bytes, lines, whitespace, comments and
/// UTF-8, and (in its extensions) the tokens: strings, numbers, dates.
struct TOMLScanner {
    /// A place in the document, for errors and for the line each key is recorded with.
    struct Position: Sendable, Equatable {
        /// The line, from 1.
        var line: Int
        /// The column, from 1, in Unicode scalars.
        var column: Int
    }

    let bytes: [UInt8]
    /// The offset of the next byte.
    private(set) var offset = 0
    /// Where the next byte is.
    private(set) var position = Position(line: 1, column: 1)

    /// A scanner at the start of `bytes`, past a UTF-8 byte-order mark if there is one.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    }

    /// The next byte, nil at the end.
    var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// The byte `distance` bytes past the next one, nil past the end.
    func peek(_ distance: Int) -> UInt8? {
        offset + distance < bytes.count ? bytes[offset + distance] : nil
    }

    /// Steps over one byte that is not a line break (those go through `skipNewline`).
    mutating func advance() {
        // A UTF-8 continuation byte is part of the scalar already counted.
        if bytes[offset] & 0xC0 != 0x80 { position.column += 1 }
        offset += 1
    }

    /// Steps over `count` bytes that hold no line break.
    mutating func advance(by count: Int) {
        for _ in 0..<count { advance() }
    }

    /// The error `message` at `place`, or at the next byte.
    func error(_ message: String, at place: Position? = nil) -> TOMLError {
        let place = place ?? position
        return TOMLError(line: place.line, column: place.column, message)
    }

    /// Skips spaces and tabs, TOML's only whitespace within a line.
    mutating func skipWhitespace() {
        while let byte = current, byte == .space || byte == .tab { advance() }
    }

    /// Skips one line break (LF or CRLF) and says whether there was one; a CR alone is refused.
    mutating func skipNewline() throws(TOMLError) -> Bool {
        switch current {
        case .lineFeed:
            offset += 1
        case .carriageReturn:
            guard peek(1) == .lineFeed else { throw error("a carriage return must be followed by a line feed") }
            offset += 2
        default:
            return false
        }
        position = Position(line: position.line + 1, column: 1)
        return true
    }

    /// Skips a comment from `#` to the end of its line, leaving the line break; a comment may
    /// hold any Unicode text but no control character other than tab.
    mutating func skipComment() throws(TOMLError) {
        guard current == .hash else { return }
        advance()
        while let byte = current, byte != .lineFeed {
            if byte == .carriageReturn, peek(1) == .lineFeed { return }
            try skipCharacter(in: "a comment")
        }
    }

    /// Skips whitespace, line breaks and comments: what may stand between an array's items.
    mutating func skipWhitespaceCommentsAndNewlines() throws(TOMLError) {
        while true {
            skipWhitespace()
            try skipComment()
            guard try skipNewline() else { return }
        }
    }

    /// Steps over one character of a comment or string: tab, printable ASCII or a whole, valid
    /// UTF-8 sequence. Other control characters and broken UTF-8 are refused, naming `place`.
    mutating func skipCharacter(in place: String) throws(TOMLError) {
        guard let byte = current else { return }
        if byte < 0x80 {
            guard byte == .tab || (byte >= 0x20 && byte != 0x7F) else {
                throw error("the control character \(Self.codePoint(byte)) is not allowed in \(place)")
            }
            advance()
            return
        }
        guard let length = utf8SequenceLength() else { throw error("the bytes here are not UTF-8 text") }
        advance(by: length)
    }

    /// The length of the valid UTF-8 sequence at the next byte (2 to 4), nil if it is not one:
    /// overlong forms, surrogates and values past U+10FFFF are refused as the standard says.
    private func utf8SequenceLength() -> Int? {
        guard let lead = current else { return nil }
        let (length, secondRange): (Int, ClosedRange<UInt8>)
        switch lead {
        case 0xC2...0xDF: (length, secondRange) = (2, 0x80...0xBF)
        case 0xE0: (length, secondRange) = (3, 0xA0...0xBF)
        case 0xED: (length, secondRange) = (3, 0x80...0x9F)
        case 0xE1...0xEF: (length, secondRange) = (3, 0x80...0xBF)
        case 0xF0: (length, secondRange) = (4, 0x90...0xBF)
        case 0xF1...0xF3: (length, secondRange) = (4, 0x80...0xBF)
        case 0xF4: (length, secondRange) = (4, 0x80...0x8F)
        default: return nil
        }
        guard let second = peek(1), secondRange.contains(second) else { return nil }
        for distance in 2..<length {
            guard let next = peek(distance), next & 0xC0 == 0x80 else { return nil }
        }
        return length
    }

    /// The next byte as a message names it: `"x"`, `the end of the line`, `the end of the file`.
    var found: String {
        guard let byte = current else { return "the end of the file" }
        switch byte {
        case .lineFeed, .carriageReturn: return "the end of the line"
        case 0x21...0x7E: return "\"\(String(UnicodeScalar(byte)))\""
        case .space, .tab: return "a space"
        case 0x80...: return "a non-ASCII character"
        default: return "the control character \(Self.codePoint(byte))"
        }
    }

    /// `U+0007`.
    static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `U+0007`, for a byte.
    static func codePoint(_ byte: UInt8) -> String {
        codePoint(UInt32(byte))
    }
}
