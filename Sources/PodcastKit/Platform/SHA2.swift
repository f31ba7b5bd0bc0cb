import CDigest

/// SHA-256, SHA-384 and SHA-512 (FIPS 180-4), fed in pieces of any size: for checking downloads
/// against the digests a feed publishes, on systems without a crypto library.
public struct SHA2: Sendable {
    /// A function of the family.
    public enum Variant: String, Sendable, CaseIterable {
        case sha256, sha384, sha512

        /// The digest's length in bytes; a longer digest is a stronger check.
        public var digestByteCount: Int {
            switch self {
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        /// 64 bytes (sixteen 32-bit words) for SHA-256, 128 bytes (sixteen 64-bit words) for the others.
        var blockByteCount: Int { self == .sha256 ? 64 : 128 }
    }

    /// Eight chaining words; SHA-256 keeps its 32-bit words in the low halves.
    typealias State = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    /// The function this value computes.
    public let variant: Variant
    private var state: State
    /// The start of a block that `update` has not yet been given enough bytes to finish.
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                          UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    private var pendingCount = 0
    private var byteCount: UInt64 = 0

    /// Starts a digest of no bytes yet.
    public init(_ variant: Variant) {
        self.variant = variant
        state = Self.initialState(variant)
        pending = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        byteCount &+= UInt64(bytes.count)
        let blockSize = variant.blockByteCount
        var consumed = 0
        if pendingCount > 0 {
            consumed = min(bytes.count, blockSize - pendingCount)
            appendPending(UnsafeRawBufferPointer(rebasing: bytes[..<consumed]))
            guard pendingCount == blockSize else { return }
            compressPending()
        }
        // Whole blocks are compressed straight from the caller's memory, without a copy.
        let wholeBlocksEnd = consumed + (bytes.count - consumed) / blockSize * blockSize
        Self.compress(&state, UnsafeRawBufferPointer(rebasing: bytes[consumed..<wholeBlocksEnd]), variant)
        appendPending(UnsafeRawBufferPointer(rebasing: bytes[wholeBlocksEnd...]))
    }

    /// Pads the message and returns its digest, `variant.digestByteCount` bytes. This value is
    /// spent afterwards: start a new one for another message.
    public mutating func finish() -> [UInt8] {
        let blockSize = variant.blockByteCount
        // The length field is 64 bits for SHA-256 and 128 bits for the others.
        let lengthFieldSize = blockSize / 8
        let bitCount = byteCount << 3
        let bitCountHigh = byteCount >> 61
        withUnsafeBytes(of: UInt8(0x80)) { appendPending($0) }
        if pendingCount > blockSize - lengthFieldSize {
            zeroPending(from: pendingCount)
            compressPending()
        }
        zeroPending(from: pendingCount)
        withUnsafeMutableBytes(of: &pending) { block in
            block.storeBytes(of: bitCount.bigEndian, toByteOffset: blockSize - 8, as: UInt64.self)
            if lengthFieldSize == 16 {
                block.storeBytes(of: bitCountHigh.bigEndian, toByteOffset: blockSize - 16, as: UInt64.self)
            }
        }
        compressPending()
        return digestBytes()
    }

    /// The digest of the file at `path`, read in 256 KiB pieces on the calling thread.
    public static func digest(ofFile path: String, _ variant: Variant) throws(SystemError) -> [UInt8] {
        var hasher = SHA2(variant)
        try FileIO.read(path, pieceSize: 256 * 1024) { piece in
            hasher.update(piece)
            return true
        }
        return hasher.finish()
    }

    /// A digest as lowercase hexadecimal digits, as the state store keeps it.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private mutating func appendPending(_ bytes: UnsafeRawBufferPointer) {
        let start = pendingCount
        withUnsafeMutableBytes(of: &pending) { block in
            UnsafeMutableRawBufferPointer(rebasing: block[start..<start + bytes.count]).copyMemory(from: bytes)
        }
        pendingCount += bytes.count
    }

    private mutating func zeroPending(from start: Int) {
        let end = variant.blockByteCount
        withUnsafeMutableBytes(of: &pending) { block in
            for offset in start..<end { block[offset] = 0 }
        }
        pendingCount = end
    }

    private mutating func compressPending() {
        let blockSize = variant.blockByteCount
        let variant = variant
        withUnsafeBytes(of: pending) { block in
            Self.compress(&state, UnsafeRawBufferPointer(rebasing: block[..<blockSize]), variant)
        }
        pendingCount = 0
    }

    /// The chaining words, big-endian, cut to the variant's length (SHA-384 drops the last two).
    private func digestBytes() -> [UInt8] {
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        var digest: [UInt8] = []
        digest.reserveCapacity(64)
        for word in words {
            if variant == .sha256 {
                withUnsafeBytes(of: UInt32(truncatingIfNeeded: word).bigEndian) { digest += $0 }
            } else {
                withUnsafeBytes(of: word.bigEndian) { digest += $0 }
            }
        }
        return Array(digest.prefix(variant.digestByteCount))
    }

    private static func compress(_ state: inout State, _ blocks: UnsafeRawBufferPointer, _ variant: Variant) {
        switch variant {
        case .sha256 where hasSHAExtensions:
            compressWithSHAExtensions(&state, blocks)
        case .sha256: compress(&state, blocks, words: UInt32.self)
        case .sha384, .sha512: compress(&state, blocks, words: UInt64.self)
        }
    }

    /// Whether this processor has the SHA extensions: SHA-256 then runs several times faster than
    /// the portable rounds, fast enough to digest a download as it is written.
    static let hasSHAExtensions = podcast_sha256_hardware_available() == 1

    /// SHA-256's compression over `blocks` with the SHA extensions (`CDigest`).
    static func compressWithSHAExtensions(_ state: inout State, _ blocks: UnsafeRawBufferPointer) {
        guard let start = blocks.baseAddress?.assumingMemoryBound(to: UInt8.self), blocks.count >= 64 else { return }
        var words = (
            UInt32(truncatingIfNeeded: state.0), UInt32(truncatingIfNeeded: state.1), UInt32(truncatingIfNeeded: state.2),
            UInt32(truncatingIfNeeded: state.3), UInt32(truncatingIfNeeded: state.4), UInt32(truncatingIfNeeded: state.5),
            UInt32(truncatingIfNeeded: state.6), UInt32(truncatingIfNeeded: state.7))
        withUnsafeMutableBytes(of: &words) { raw in
            podcast_sha256_blocks(raw.baseAddress?.assumingMemoryBound(to: UInt32.self), start, blocks.count / 64)
        }
        state = (UInt64(words.0), UInt64(words.1), UInt64(words.2), UInt64(words.3),
                 UInt64(words.4), UInt64(words.5), UInt64(words.6), UInt64(words.7))
    }
}
