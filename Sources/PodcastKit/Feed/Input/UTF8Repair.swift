/// Streams bytes that should be UTF-8, replacing each byte that is not part of a valid sequence
/// by its Windows-1252 character, which is what such bytes almost always are in feeds that do
/// not declare their encoding. Valid UTF-8 passes through untouched; a sequence split between
/// two chunks is completed from the next one.
struct UTF8Repair {
    private var pending: [UInt8] = []

    /// The repaired form of `chunk`; the last, possibly incomplete, sequence is held back.
    mutating func repair(_ chunk: UnsafeRawBufferPointer) -> [UInt8] {
        var input = pending
        input.append(contentsOf: chunk)
        pending.removeAll(keepingCapacity: true)
        return repairFront(input, final: false)
    }

    /// Whatever is still held back, repaired, at the end of the document.
    mutating func finish() -> [UInt8] {
        let input = pending
        pending.removeAll()
        return repairFront(input, final: true)
    }

    /// `input` with invalid bytes replaced. Valid runs are not copied byte by byte: the input is
    /// returned as it is when nothing needed repair (the common case), and otherwise copied in
    /// runs between repairs.
    private mutating func repairFront(_ input: [UInt8], final: Bool) -> [UInt8] {
        var output: [UInt8] = []
        var flushed = 0
        var index = 0
        let count = input.count
        while index < count {
            let byte = input[index]
            if byte < 0x80 {
                index += 1
                continue
            }
            let length = Self.sequenceLength(byte)
            if length > 1 {
                if index + length > count {
                    // Possibly completed by the next chunk.
                    if !final && Self.isValidPrefix(input[index...]) {
                        pending.append(contentsOf: input[index...])
                        if flushed == 0 { return Array(input[..<index]) }
                        output.append(contentsOf: input[flushed..<index])
                        return output
                    }
                } else if Self.isValid(input[index..<index + length]) {
                    index += length
                    continue
                }
            }
            output.append(contentsOf: input[flushed..<index])
            output.append(contentsOf: Self.windows1252(byte))
            index += 1
            flushed = index
        }
        if flushed == 0 { return input }
        output.append(contentsOf: input[flushed...])
        return output
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
    private static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        let lead = bytes[bytes.startIndex]
        let second = bytes[bytes.startIndex + 1]
        let secondRange: ClosedRange<UInt8> = switch lead {
        case 0xE0: 0xA0...0xBF
        case 0xED: 0x80...0x9F
        case 0xF0: 0x90...0xBF
        case 0xF4: 0x80...0x8F
        default: 0x80...0xBF
        }
        guard secondRange.contains(second) else { return false }
        return bytes.dropFirst(2).allSatisfy { $0 & 0xC0 == 0x80 }
    }

    /// Whether an incomplete tail could still become a valid sequence.
    private static func isValidPrefix(_ bytes: ArraySlice<UInt8>) -> Bool {
        var padded = Array(bytes)
        let length = sequenceLength(padded[0])
        guard length > 1 else { return false }
        // Complete it with the smallest continuation that keeps the lead's constraints.
        let second: UInt8 = padded[0] == 0xE0 ? 0xA0 : padded[0] == 0xF0 ? 0x90 : 0x80
        while padded.count < length { padded.append(padded.count == 1 ? second : 0x80) }
        return isValid(padded[...])
    }

    /// `text` (UTF-8) with each C1 control character (U+0080–U+009F) replaced by the Windows-1252
    /// character of the same byte. Such controls never belong in feed text: they are Windows-1252
    /// punctuation (curly quotes, dashes, …) that was decoded as Latin-1, or encoded as UTF-8 from
    /// such a decoding. The five bytes Windows-1252 leaves undefined stay as they are.
    static func replacingC1Controls(_ text: [UInt8]) -> [UInt8] {
        guard text.indices.dropLast().contains(where: { text[$0] == 0xC2 && (0x80...0x9F).contains(text[$0 + 1]) }) else {
            return text
        }
        var output: [UInt8] = []
        output.reserveCapacity(text.count + 8)
        var index = 0
        while index < text.count {
            if text[index] == 0xC2, index + 1 < text.count, (0x80...0x9F).contains(text[index + 1]),
                Windows1252.scalar(text[index + 1]) != nil {
                output.append(contentsOf: windows1252(text[index + 1]))
                index += 2
            } else {
                output.append(text[index])
                index += 1
            }
        }
        return output
    }

    /// The UTF-8 encoding of `byte` read as Windows-1252 (U+FFFD for its undefined bytes).
    private static func windows1252(_ byte: UInt8) -> [UInt8] {
        Array(String(Character(Windows1252.scalar(byte) ?? "\u{FFFD}")).utf8)
    }
}
