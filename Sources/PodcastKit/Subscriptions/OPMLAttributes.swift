import CLibXML2

/// The unprefixed attributes of one OPML start tag, as libxml2's SAX2 callback hands them over
/// (five pointers each: local name, prefix, URI, value start, value end); valid only during the
/// callback.
struct OPMLAttributes {
    private let pointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    private let count: Int

    init(_ pointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int) {
        self.pointers = pointers
        self.count = count
    }

    /// The value of the attribute whose name, lower-cased, is `lowercasedName`, trimmed; nil when
    /// absent. Names are matched in any case because exporters disagree (`xmlUrl`, `xmlURL`, `xmlurl`).
    subscript(lowercasedName: String) -> String? {
        guard let pointers else { return nil }
        for index in 0..<count {
            let attribute = pointers + index * 5
            guard attribute[1] == nil, let name = attribute[0], let start = attribute[3], let end = attribute[4],
                String(cString: name).lowercased() == lowercasedName
            else { continue }
            return Self.decoded(UnsafeBufferPointer(start: start, count: end - start))
        }
        return nil
    }

    /// A raw value with white space trimmed and `&` restored: in SAX2 mode libxml2 decodes every
    /// reference in an attribute except the ampersand, which it hands over as `&#38;` (a literal
    /// `&` cannot be there, so each `&#38;` stands for exactly one). Replaced in the bytes: as
    /// characters, a combining mark or emoji modifier after it would join the `;` and hide it.
    private static func decoded(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        let value = String(trimmingWhitespace: raw)
        guard value.utf8.contains(UInt8(ascii: "&")) else { return value }
        let reference = Array("&#38;".utf8)
        let bytes = Array(value.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index...].starts(with: reference) {
                decoded.append(UInt8(ascii: "&"))
                index += reference.count
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
