/// Eight bytes read as one word, to skip runs of text that need nothing eight bytes at a time
/// (the scanner of feed input).
public struct ByteWord {
    /// The eight bytes, in memory order.
    public let bits: UInt64

    /// The eight bytes of `bytes` from `offset` (which must leave eight to read).
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        // Byte i in bits 8i..8i+7 on any machine, for `firstOffset`.
        bits = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The offset of the first byte that is `first` or `second`, or, with `nonASCII`, 0x80 or
    /// more; nil when there is none.
    @inlinable
    public func firstOffset(of first: UInt8, _ second: UInt8, orNonASCII nonASCII: Bool) -> Int? {
        var marks = (Self.zeroBytes(bits ^ (UInt64(first) &* Self.ones)) | Self.zeroBytes(bits ^ (UInt64(second) &* Self.ones)))
            & Self.highBits
        if nonASCII { marks |= bits & Self.highBits }
        // The lowest mark is exact: `zeroBytes` can only mark a byte above a true match.
        return marks == 0 ? nil : marks.trailingZeroBitCount / 8
    }

    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// `word` with the high bit of each zero byte set (and perhaps of a byte above one), among
    /// other bits.
    @inlinable
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word
    }
}
