/// Eight bytes read as one word, to skip runs of text that need nothing eight bytes at a time
/// (the scanners of feed input and JSON output).
public struct ByteWord {
    /// The eight bytes, in memory order.
    public let bits: UInt64

    /// The eight bytes of `bytes` from `offset` (which must leave eight to read).
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        // Byte i in bits 8i..8i+7 on any machine, for `firstOffset`.
        bits = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Whether one of the bytes is `byte`.
    @inlinable
    public func contains(_ byte: UInt8) -> Bool {
        Self.hasZeroByte(bits ^ (UInt64(byte) &* Self.ones))
    }

    /// Whether one of the bytes is below `limit` (at most 0x80).
    @inlinable
    public func containsByte(below limit: UInt8) -> Bool {
        (bits &- UInt64(limit) &* Self.ones) & ~bits & Self.highBits != 0
    }

    /// Whether one of the bytes is 0x80 or more (not ASCII).
    @inlinable
    public var containsNonASCII: Bool { bits & Self.highBits != 0 }

    /// Whether one of the bytes is below `limit` (at most 0x80) or is one of `first`, `second`
    /// and `third`: the tests of `containsByte(below:)` and `contains(_:)` in one expression, for
    /// scans where the answer is nearly always no.
    @inlinable
    public func containsAny(below limit: UInt8, _ first: UInt8, _ second: UInt8, _ third: UInt8) -> Bool {
        let below = (bits &- UInt64(limit) &* Self.ones) & ~bits
        let matches = Self.zeroBytes(bits ^ (UInt64(first) &* Self.ones)) | Self.zeroBytes(bits ^ (UInt64(second) &* Self.ones))
            | Self.zeroBytes(bits ^ (UInt64(third) &* Self.ones))
        return (below | matches) & Self.highBits != 0
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

    /// Whether one of the eight bytes of `word` is zero. (The trick can mark a byte above a zero
    /// byte too, so it says whether, not where.)
    @inlinable
    static func hasZeroByte(_ word: UInt64) -> Bool {
        zeroBytes(word) & highBits != 0
    }

    /// `word` with the high bit of each zero byte set (and perhaps of a byte above one), among
    /// other bits: `hasZeroByte` before its last step, for tests that combine several.
    @inlinable
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word
    }
}
