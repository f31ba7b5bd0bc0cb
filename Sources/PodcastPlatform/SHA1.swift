import CDigest

/// SHA-1 (FIPS 180-4) of a whole message, by libcrypto (`CDigest`). Collisions are cheap, so it
/// checks nothing of podcast's own: it is here because the Podcast Index API signs each request
/// with the SHA-1 of key, secret and time, and accepts nothing else.
public enum SHA1 {
    /// The digest's length in bytes.
    public static let digestByteCount = 20

    /// The 20-byte digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        let message = Array(bytes)
        // An empty array may have no storage, and libcrypto wants a pointer even for no bytes.
        let storage = message.isEmpty ? [0] : message
        var digest = [UInt8](repeating: 0, count: digestByteCount)
        storage.withUnsafeBytes { buffer in
            podcast_sha1(buffer.baseAddress!, message.count, &digest)
        }
        return digest
    }

    /// The digest of `text`'s UTF-8 bytes as lowercase hexadecimal digits (40 of them).
    public static func hex(_ text: String) -> String {
        SHA2.hex(digest(text.utf8))
    }
}
