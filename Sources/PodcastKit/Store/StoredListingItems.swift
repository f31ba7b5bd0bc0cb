import FoundationEssentials

/// A listing's items as the store keeps them: one value in the listing's row, not a row each.
///
/// A listing is only ever written whole (`episodes`, `search`, `download`) and read whole
/// (`download N`), never searched by column. Kept as a row per item, storing a 10,000-episode
/// listing took `podcast episodes` about 25 ms, longer than writing its JSON: nine values bound and copied per row, B-tree pages split as rows
/// were added, 2.3 MB through the write-ahead log and again into the database. As one value,
/// what neighbouring items share (a CDN's address, the media type, a guid that is the
/// identity) is written once: 1.1 MB for the same listing, stored in about 10 ms.
///
/// Layout (every number an unsigned LEB128 varint):
/// - the format's version (1), then the number of items;
/// - per item: its number; a byte of flags (1: a length follows, 2: a date follows); the
///   length, zigzag-encoded; the date, the 8 bytes of its `Double` (seconds since 1970), little
///   endian; then the six texts in the order of `Text`, each as a header `h` and maybe bytes:
///   0: none; 1: the same as this item's identity; `h` ≥ 2: the first `h - 2` bytes of the same
///   text of the item before, then a count and that many bytes more.
enum StoredListingItems {
    /// The format `encode` writes, its first byte.
    static let version: UInt64 = 1

    /// The texts of an item, in the order they are written.
    private enum Text: Int, CaseIterable {
        case identity, title, enclosureURL, enclosureType, guid, integrity
    }

    private static let hasLength: UInt8 = 1
    private static let hasDate: UInt8 = 2

    /// `items` as one value.
    static func encode(_ items: some Collection<ListingItem>) -> [UInt8] {
        var writer = Writer()
        writer.bytes.reserveCapacity(64 + items.count * 160)
        writer.varint(version)
        writer.varint(UInt64(items.count))
        for item in items {
            writer.varint(UInt64(bitPattern: Int64(item.number)))
            let length = item.enclosureLength
            let date = item.published?.timeIntervalSince1970
            writer.bytes.append((length == nil ? 0 : hasLength) | (date == nil ? 0 : hasDate))
            if let length { writer.varint(UInt64(bitPattern: (length << 1) ^ (length >> 63))) }
            if let date { withUnsafeBytes(of: date.bitPattern.littleEndian) { writer.bytes.append(contentsOf: $0) } }
            writer.text(item.identity, as: .identity, identity: nil)
            writer.text(item.title, as: .title, identity: item.identity)
            writer.text(item.enclosureURL, as: .enclosureURL, identity: item.identity)
            writer.text(item.enclosureType, as: .enclosureType, identity: item.identity)
            writer.text(item.guid, as: .guid, identity: item.identity)
            writer.text(item.integrity?.stored, as: .integrity, identity: item.identity)
        }
        return writer.bytes
    }

    /// The items `encode` wrote into `bytes`; throws what is wrong with bytes it did not write
    /// (a damaged file, or a newer podcast's format).
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodingError) -> [ListingItem] {
        var reader = Reader(bytes: bytes)
        let found = try reader.varint()
        guard found == version else { throw DecodingError(reason: "format \(found), not \(version)") }
        let count = try reader.varint()
        // Every item takes at least 8 bytes: a count beyond that is damage, not a reason to reserve memory.
        guard count <= UInt64(bytes.count / 8) else { throw DecodingError(reason: "\(count) items in \(bytes.count) bytes") }
        var items: [ListingItem] = []
        items.reserveCapacity(Int(count))
        var previous = [[UInt8]?](repeating: nil, count: Text.allCases.count)
        for _ in 0..<count {
            let number = Int(Int64(bitPattern: try reader.varint()))
            let flags = try reader.byte()
            let length = flags & hasLength == 0 ? nil : try reader.zigzag()
            let date = flags & hasDate == 0 ? nil : Date(timeIntervalSince1970: Double(bitPattern: try reader.littleEndian64()))
            var texts: [String?] = []
            for text in Text.allCases {
                let bytes = try reader.text(previous: previous[text.rawValue], identity: text == .identity ? nil : previous[0])
                previous[text.rawValue] = bytes
                texts.append(bytes.map { String(decoding: $0, as: UTF8.self) })
            }
            guard let identity = texts[Text.identity.rawValue], let title = texts[Text.title.rawValue] else {
                throw DecodingError(reason: "item \(number) has no identity or no title")
            }
            var integrity: Integrity?
            if let stored = texts[Text.integrity.rawValue] {
                guard let parsed = Integrity(stored: stored) else { throw DecodingError(reason: "item \(number) has a damaged digest") }
                integrity = parsed
            }
            items.append(ListingItem(
                number: number, identity: identity, title: title, enclosureURL: texts[Text.enclosureURL.rawValue],
                enclosureType: texts[Text.enclosureType.rawValue], enclosureLength: length, published: date,
                guid: texts[Text.guid.rawValue], integrity: integrity))
        }
        guard reader.isAtEnd else { throw DecodingError(reason: "bytes after the last item") }
        return items
    }

    /// Why stored items could not be read.
    struct DecodingError: Error, Equatable {
        var reason: String
    }

    private struct Writer {
        var bytes: [UInt8] = []
        /// Per `Text`, the bytes of the same text of the item before (none when it had none):
        /// copies, so that no item is held (and reference-counted) past its turn.
        private var previous = [[UInt8]](repeating: [], count: Text.allCases.count)

        mutating func varint(_ value: UInt64) {
            var rest = value
            while rest >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
                rest >>= 7
            }
            bytes.append(UInt8(rest))
        }

        /// Writes `text`, the item's `field`, against the same text of the item before and the
        /// item's `identity` (nil when `text` is the identity).
        mutating func text(_ text: String?, as field: Text, identity: String?) {
            guard let text else {
                previous[field.rawValue].removeAll(keepingCapacity: true)
                return varint(0)
            }
            Self.withBytes(of: text) { text in
                defer {
                    previous[field.rawValue].removeAll(keepingCapacity: true)
                    previous[field.rawValue].append(contentsOf: text)
                }
                // Byte for byte: `==` would take a differently normalized text for the same.
                if let identity, Self.withBytes(of: identity, { Self.sharedPrefix(text, $0) == max(text.count, $0.count) }) {
                    return varint(1)
                }
                let shared = previous[field.rawValue].withUnsafeBufferPointer { Self.sharedPrefix(text, $0) }
                varint(UInt64(shared) + 2)
                varint(UInt64(text.count - shared))
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[shared...]))
            }
        }

        /// Runs `body` on the UTF-8 of `text`: in place, as every native string is contiguous.
        private static func withBytes<T>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
            if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
            return Array(text.utf8).withUnsafeBufferPointer(body)
        }

        /// How many bytes `a` and `b` start with in common.
        private static func sharedPrefix(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
            let limit = min(a.count, b.count)
            var index = 0
            while index < limit && a[index] == b[index] { index += 1 }
            return index
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() throws(DecodingError) -> UInt8 {
            guard offset < bytes.count else { throw DecodingError(reason: "cut short at byte \(offset)") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() throws(DecodingError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try byte()
                guard shift < 64, shift < 63 || byte <= 1 else { throw DecodingError(reason: "a number too long at byte \(offset)") }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }

        mutating func zigzag() throws(DecodingError) -> Int64 {
            let value = try varint()
            return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
        }

        mutating func littleEndian64() throws(DecodingError) -> UInt64 {
            guard bytes.count - offset >= 8 else { throw DecodingError(reason: "cut short at byte \(offset)") }
            defer { offset += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }

        /// The bytes of a text written against `previous` and `identity` (nil: this is the identity).
        mutating func text(previous: [UInt8]?, identity: [UInt8]?) throws(DecodingError) -> [UInt8]? {
            let header = try varint()
            switch header {
            case 0: return nil
            case 1:
                guard let identity else { throw DecodingError(reason: "an identity refers to itself at byte \(offset)") }
                return identity
            default:
                let shared = header - 2
                let added = try varint()
                guard shared <= UInt64(previous?.count ?? 0), added <= UInt64(bytes.count - offset) else {
                    throw DecodingError(reason: "a text runs past what there is at byte \(offset)")
                }
                var text = Array((previous ?? [])[..<Int(shared)])
                text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(added))]))
                offset += Int(added)
                return text
            }
        }
    }
}
