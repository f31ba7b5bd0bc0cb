/// A gzip encoder that needs no zlib: the deflate stream is made of "stored" (uncompressed) blocks.
///
/// Bigger than the input, but a valid gzip member that every decoder, libcurl's and `gzip -d`, must accept.
enum Gzip {
    /// The gzip member (RFC 1952) holding `bytes` unchanged in deflate stored blocks (RFC 1951 §3.2.4).
    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        let blockLimit = 65_535
        var member: [UInt8] = [
            0x1F, 0x8B,  // magic
            0x08,  // compression method: deflate
            0x00,  // flags: no name, comment or extra field
            0x00, 0x00, 0x00, 0x00,  // mtime unknown, so identical bodies give identical bytes
            0x00,  // extra flags
            0xFF,  // operating system unknown
        ]
        member.reserveCapacity(member.count + bytes.count + (bytes.count / blockLimit + 1) * 5 + 8)
        var offset = 0
        // repeat, not while: an empty body still needs one final (empty) block.
        repeat {
            let length = min(blockLimit, bytes.count - offset)
            let isFinal = offset + length == bytes.count
            // BFINAL in bit 0, BTYPE 00 (stored) in bits 1-2; each block starts byte-aligned, so the rest is padding.
            member.append(isFinal ? 0x01 : 0x00)
            let len = UInt16(length)
            member += littleEndian(len) + littleEndian(~len)
            member += bytes[offset..<(offset + length)]
            offset += length
        } while offset < bytes.count
        member += littleEndian(CRC32.checksum(bytes))
        member += littleEndian(UInt32(truncatingIfNeeded: bytes.count))
        return member
    }

    /// Whether an `Accept-Encoding` value lets the server answer with gzip (RFC 9110 §12.5.3).
    static func isAccepted(by acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        for element in acceptEncoding.lowercased().split(separator: ",") {
            let parameters = element.split(separator: ";").map { $0.trimmingSpacesAndTabs() }
            guard let coding = parameters.first, ["gzip", "x-gzip", "*"].contains(coding) else { continue }
            // "gzip;q=0" means the client refuses gzip.
            let refused = parameters.dropFirst().contains { parameter in
                guard parameter.hasPrefix("q=") else { return false }
                return Double(parameter.dropFirst(2)) == 0
            }
            if !refused { return true }
        }
        return false
    }

    private static func littleEndian<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
        (0..<(Value.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
