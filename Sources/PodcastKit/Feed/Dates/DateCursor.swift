/// A read position in a date's UTF-8 bytes. Readers work on a copy, so a failed attempt
/// leaves the caller's position untouched for the next reader.
struct DateCursor {
    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position: Int
    private let end: Int

    /// A cursor over `bytes` without their leading and trailing ASCII white space.
    init(trimming bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        var end = bytes.count
        while start < end, DateCursor.isSpace(bytes[start]) { start += 1 }
        while end > start, DateCursor.isSpace(bytes[end - 1]) { end -= 1 }
        self.bytes = bytes
        self.position = start
        self.end = end
    }

    var isAtEnd: Bool { position >= end }

    /// The byte at the read position, or nil at the end.
    var current: UInt8? { position < end ? bytes[position] : nil }

    /// The byte `offset` places after the read position, or nil past the end.
    func peek(_ offset: Int) -> UInt8? {
        position + offset < end ? bytes[position + offset] : nil
    }

    var isAtDigit: Bool { current.map(DateCursor.isDigit) ?? false }

    /// True at a letter of some script: an ASCII letter or any byte of a multi-byte UTF-8 sequence.
    var isAtLetter: Bool { current.map(DateCursor.isLetter) ?? false }

    mutating func advance(_ count: Int = 1) { position = min(position + count, end) }

    /// Consumes `byte` when it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        position += 1
        return true
    }

    /// Consumes `expected` when the next bytes are exactly these.
    mutating func consume(_ expected: [UInt8]) -> Bool {
        guard end - position >= expected.count else { return false }
        var offset = 0
        while offset < expected.count {
            if bytes[position + offset] != expected[offset] { return false }
            offset += 1
        }
        position += expected.count
        return true
    }

    /// Consumes an ASCII letter matching `lowercase` in either case.
    mutating func consumeLetter(_ lowercase: UInt8) -> Bool {
        guard let byte = current, byte | 0x20 == lowercase else { return false }
        position += 1
        return true
    }

    /// Consumes a run of digits: its value and length. The value is meaningless past 18 digits,
    /// which every caller rejects by length.
    mutating func digits() -> (value: Int, count: Int) {
        var value = 0
        var count = 0
        while let byte = current, DateCursor.isDigit(byte) {
            if count < 18 { value = value * 10 + Int(byte - UInt8(ascii: "0")) }
            count += 1
            position += 1
        }
        return (value, count)
    }

    /// Consumes a run of 1 to `maxCount` digits and returns its value, or nil for another length.
    mutating func number(maxCount: Int) -> Int? {
        let run = digits()
        return (1...maxCount).contains(run.count) ? run.value : nil
    }

    /// Consumes a run of exactly `count` digits and returns its value, or nil for another length.
    mutating func number(exactly count: Int) -> Int? {
        let run = digits()
        return run.count == count ? run.value : nil
    }

    /// Consumes a word: letters of any script, plus `/`, `_` and `.` as in `Etc/GMT` or `Sept.`.
    mutating func word() -> UnsafeBufferPointer<UInt8> {
        let start = position
        while let byte = current, DateCursor.isLetter(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ".")
        {
            position += 1
        }
        return UnsafeBufferPointer(rebasing: bytes[start..<position])
    }

    /// Skips spaces and tabs; returns how many there were.
    @discardableResult
    mutating func skipSpaces() -> Int {
        let start = position
        while let byte = current, DateCursor.isSpace(byte) { position += 1 }
        return position - start
    }

    /// Skips what separates the fields of an RFC 822 date: white space and the stray commas feeds add.
    @discardableResult
    mutating func skipSeparators() -> Int {
        let start = position
        while let byte = current, DateCursor.isSpace(byte) || byte == UInt8(ascii: ",") { position += 1 }
        return position - start
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte >= 0x80 }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
    }
}
