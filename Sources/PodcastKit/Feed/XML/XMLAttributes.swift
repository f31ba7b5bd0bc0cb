import CLibXML2
import PodcastText

/// The attributes of one start tag, read in place from libxml2's array (valid only during the
/// start-element call). Values are decoded on demand, so tags whose attributes nobody reads cost
/// nothing.
struct XMLAttributes {
    /// libxml2's layout: five pointers per attribute (local name, prefix, URI, value start, value end).
    private let pointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    private let count: Int

    /// The `count` attributes libxml2 handed to a start-element callback.
    init(_ pointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int) {
        self.pointers = pointers
        self.count = count
    }

    /// The value of attribute `local` in `namespace` (unprefixed attributes are `.none`), with
    /// surrounding white space removed; nil when absent.
    func value(_ local: StaticString, in namespace: FeedNamespace = .none) -> String? {
        guard let pointers else { return nil }
        for index in 0..<count {
            let base = pointers + index * 5
            guard let name = base[0], let start = base[3], let end = base[4], Self.name(name, is: local),
                FeedNamespace(prefix: base[1], uri: base[2]) == namespace
            else { continue }
            return Self.text(UnsafeBufferPointer(start: start, count: end - start))
        }
        return nil
    }

    /// Whether the NUL-terminated `name` is `local`, compared on bytes.
    private static func name(_ name: UnsafePointer<xmlChar>, is local: StaticString) -> Bool {
        local.withUTF8Buffer { local in
            var next = name
            for byte in local {
                guard next.pointee == byte else { return false }
                next += 1
            }
            return next.pointee == 0
        }
    }

    /// An attribute's raw value with references decoded and surrounding white space removed.
    private static func text(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(trimmingWhitespace: raw) }
        return decodingReferences(String(decoding: raw, as: UTF8.self)).trimmingWhitespace()
    }

    /// `value` with its character and entity references replaced. In SAX2 mode libxml2 leaves
    /// them in attribute values (`&amp;` arrives as `&#38;`), which would break URLs.
    static func decodingReferences(_ value: String) -> String {
        guard value.utf8.contains(UInt8(ascii: "&")) else { return value }
        var result = ""
        var rest = Substring(value)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            guard let semicolon = rest[afterAmpersand...].prefix(34).firstIndex(of: ";") else {
                result += "&"
                rest = rest[afterAmpersand...]
                continue
            }
            let name = rest[afterAmpersand..<semicolon]
            if let decoded = character(for: name) {
                result += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[afterAmpersand...]
            }
        }
        return result + rest
    }

    /// The text of reference `name` (`#38`, `#x26`, `amp`, `eacute`), or nil when it is none.
    private static func character(for name: Substring) -> String? {
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        if name.hasPrefix("#") {
            return UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        // HTML's table includes XML's five (amp, lt, gt, quot, apos).
        return HTMLEntities.character(named: String(name))
    }
}
