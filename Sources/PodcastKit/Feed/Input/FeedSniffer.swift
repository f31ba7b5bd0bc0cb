/// What the first bytes of a document say about it, before any XML parsing.
struct FeedSniffer {
    /// The verdict on the start of a document.
    enum Verdict: Equatable {
        /// Nothing but white space (so far, or at all).
        case empty
        /// XML whose first `skip` bytes (a UTF-8 byte order mark, white space before `<?xml`, taking
        /// up `skippedLines` lines) are dropped, to be read in `encoding`.
        case xml(skip: Int, skippedLines: Int, encoding: Encoding)
        /// Not a feed at all, and what it looks like.
        case notXML(FeedError.Kind)
    }

    /// How the bytes are to be decoded.
    enum Encoding: Equatable {
        /// UTF-8 (or its subset ASCII): repaired by `InputRepair`, then given to libxml2 as UTF-8
        /// whatever the declaration says.
        case utf8
        /// Another encoding, which libxml2 decodes: from the document's own byte order mark or
        /// declaration when `override` is nil, else the named one.
        case decodedByLibXML(override: String?)
    }

    /// Judges the first bytes of a document (at least 512 of them, unless it is shorter).
    /// `httpCharset` is the charset the server named, if any.
    static func judge(_ start: [UInt8], httpCharset: String?) -> Verdict {
        if let (name, bom) = unicodeEncoding(start) {
            // UTF-16 or UTF-32, with or without a byte order mark: the bytes themselves say so,
            // which outranks any charset a server names and any (wrong or unknown) declaration.
            return .xml(skip: bom, skippedLines: 0, encoding: .decodedByLibXML(override: name))
        }
        let bom = start.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var skip = bom
        var lines = 0
        while skip < start.count, [0x20, 0x09, 0x0A, 0x0D].contains(start[skip]) {
            if start[skip] == 0x0A { lines += 1 }
            skip += 1
        }
        guard skip < start.count else { return .empty }
        let body = start[skip...]
        switch body.first {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .notXML(.json)
        case UInt8(ascii: "<"): break
        default: return .notXML(looksBinary(body) ? .binary : .notXML)
        }
        if startsCaseInsensitive(body, with: "<!doctype html") || startsCaseInsensitive(body, with: "<html") {
            return .notXML(.html)
        }
        if bom > 0 {
            return .xml(skip: skip, skippedLines: lines, encoding: .utf8)
        }
        // The declaration wins over the server: feed generators know what they wrote, while servers
        // often label everything with a default charset. Without a declaration the server decides.
        guard let encoding = declaredEncoding(body) ?? httpCharset, !isUTF8(encoding) else {
            return .xml(skip: skip, skippedLines: lines, encoding: .utf8)
        }
        let override = declaredEncoding(body) == nil ? encoding : nil
        return .xml(skip: skip, skippedLines: lines, encoding: .decodedByLibXML(override: override))
    }

    /// The UTF-16 or UTF-32 variant the first bytes show (by byte order mark, or by the zero
    /// bytes around the first `<`), and the length of the byte order mark; nil for anything else.
    private static func unicodeEncoding(_ start: [UInt8]) -> (name: String, bom: Int)? {
        let patterns: [([UInt8], String, Int)] = [
            ([0x00, 0x00, 0xFE, 0xFF], "UTF-32BE", 4), ([0xFF, 0xFE, 0x00, 0x00], "UTF-32LE", 4),
            ([0x00, 0x00, 0x00, 0x3C], "UTF-32BE", 0), ([0x3C, 0x00, 0x00, 0x00], "UTF-32LE", 0),
            ([0xFE, 0xFF], "UTF-16BE", 2), ([0xFF, 0xFE], "UTF-16LE", 2),
            ([0x00, 0x3C], "UTF-16BE", 0), ([0x3C, 0x00], "UTF-16LE", 0),
        ]
        return patterns.first { start.starts(with: $0.0) }.map { ($0.1, $0.2) }
    }

    private static func isUTF8(_ name: String) -> Bool {
        ["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased())
    }

    /// The `encoding` of an `<?xml …?>` declaration at the start of `bytes`, if any.
    static func declaredEncoding(_ bytes: ArraySlice<UInt8>) -> String? {
        guard startsCaseInsensitive(bytes, with: "<?xml") else { return nil }
        let head = bytes.prefix { $0 != UInt8(ascii: ">") }
        let text = Substring(String(decoding: head, as: UTF8.self))
        guard let found = text.firstRange(of: "encoding") else { return nil }
        var rest = text[found.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        let name = rest.prefix { $0 != quote }
        return name.isEmpty ? nil : String(name)
    }

    private static func startsCaseInsensitive(_ bytes: ArraySlice<UInt8>, with prefix: String) -> Bool {
        guard bytes.count >= prefix.utf8.count else { return false }
        return zip(bytes, prefix.utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }

    /// NUL bytes, or many control characters, in the first bytes.
    private static func looksBinary(_ bytes: ArraySlice<UInt8>) -> Bool {
        let sample = bytes.prefix(512)
        let controls = sample.filter { $0 < 0x20 && ![0x09, 0x0A, 0x0D].contains($0) }.count
        return sample.contains(0) || controls * 10 > sample.count
    }
}
