import CDigest

/// SHA-256, SHA-384 and SHA-512 (FIPS 180-4), fed in pieces of any size: the digest of every
/// finished file (what `podcast verify` checks), and the digests feeds publish. libcrypto does
/// the rounds (`CDigest`).
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

        /// The digest's length in bits: how `CDigest` names the function.
        var bits: Int32 { Int32(digestByteCount * 8) }
    }

    /// The function this value computes.
    public let variant: Variant
    private var context = podcast_sha2_context()

    /// Starts a digest of no bytes yet.
    public init(_ variant: Variant) {
        self.variant = variant
        podcast_sha2_init(&context, variant.bits)
    }

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        podcast_sha2_update(&context, variant.bits, start, bytes.count)
    }

    /// Pads the message and returns its digest, `variant.digestByteCount` bytes. This value is
    /// spent afterwards: start a new one for another message.
    public mutating func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: variant.digestByteCount)
        podcast_sha2_final(&context, variant.bits, &digest)
        return digest
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
}
