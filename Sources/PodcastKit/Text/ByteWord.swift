/// Eight bytes read as one word, to skip runs of text that need nothing eight bytes at a time
/// (the scanners of feed input and JSON output).
public struct ByteWord {
    /// The eight bytes, in memory order.
    public let bits: UInt64

    /// The eight bytes of `bytes` from `offset` (which must leave eight to read).
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        bits = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
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

    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether one of the eight bytes of `word` is zero. (The trick can mark a byte above a zero
    /// byte too, so it says whether, not where.)
    @inlinable
    static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highBits != 0
    }
}
