import CLibXML2

/// An element's name as the feed builder matches it: its vocabulary and its local name, both
/// small enumerations, so that matching an element is comparing two bytes, not strings.
struct XMLName: Equatable {
    /// The vocabulary.
    var namespace: FeedNamespace
    /// The name without prefix, when it is one the builder acts on.
    var local: LocalName
}

/// The local names of elements the feed builder acts on; every other name is `other`.
enum LocalName: String {
    case rss, RDF, feed, channel, item, entry, image, url, author, name, title, link, description
    case subtitle, tagline, summary, creator, managingEditor, thumbnail, content, logo, icon, language
    case newFeedURL = "new-feed-url"
    case locked, funding, guid, id, enclosure, encoded, pubDate, date, issued, created, published
    case updated, modified, duration, season, episode, episodeType, explicit, block, transcript
    case chapters, chapter, alternateEnclosure, source, integrity
    case other = ""
}

/// Element names as libxml2 reports them (pointers into its dictionary, where each distinct name
/// is stored once for the life of the parse), turned into `XMLName`s once per distinct name and
/// prefix or namespace URI: a document of 300,000 elements has a few dozen.
///
/// A small open-addressing table keyed by the pointers: hashing a pointer pair through `Hasher`
/// for every element cost more than the rest of the lookup. A hostile document with more
/// distinct names than the table holds has the rest worked out each time (correct, only slower).
struct InternedNames {
    private struct Entry {
        var local: UnsafeRawPointer
        var vocabulary: UnsafeRawPointer?
        var name: XMLName
        /// The local name as written, for messages (the root of a document that is no feed).
        var spelling: String
    }

    private var entries: [Entry?] = Array(repeating: nil, count: capacity)
    private var count = 0

    /// The table's size, a power of two; it is filled to at most three quarters.
    private static let capacity = 512

    /// The name of an element or attribute whose local name is `local`, in the namespace `uri`
    /// (or, undeclared, the one its `prefix` usually means), and the local name as written.
    mutating func name(
        local: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?
    ) -> (name: XMLName, spelling: String) {
        let localKey = UnsafeRawPointer(local)
        let vocabularyKey = (uri ?? prefix).map(UnsafeRawPointer.init)
        let mask = Self.capacity - 1
        var slot = Self.slot(localKey, vocabularyKey) & mask
        while let entry = entries[slot] {
            if entry.local == localKey && entry.vocabulary == vocabularyKey { return (entry.name, entry.spelling) }
            slot = (slot + 1) & mask
        }
        let spelling = String(cString: local)
        let name = XMLName(namespace: FeedNamespace(prefix: prefix, uri: uri), local: LocalName(rawValue: spelling) ?? .other)
        if count < Self.capacity * 3 / 4 {
            entries[slot] = Entry(local: localKey, vocabulary: vocabularyKey, name: name, spelling: spelling)
            count += 1
        }
        return (name, spelling)
    }

    /// Where the search for a pair of pointers starts: their bits mixed by a multiplication
    /// (dictionary strings are at least 8-byte aligned, so the low bits alone would collide).
    private static func slot(_ local: UnsafeRawPointer, _ vocabulary: UnsafeRawPointer?) -> Int {
        let bits = UInt(bitPattern: local) &+ UInt(bitPattern: vocabulary) &* 31
        return Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> 40)
    }
}

extension FeedNamespace {
    /// The vocabulary of a name from its namespace URI, or its prefix when undeclared. A declared
    /// but unknown URI under a well-known prefix still means that vocabulary.
    init(prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?) {
        guard let key = uri ?? prefix else {
            self = .none
            return
        }
        let resolved = uri.map { FeedNamespace(uri: String(cString: $0)) } ?? FeedNamespace(prefix: String(cString: key))
        self = resolved == .other ? prefix.map { FeedNamespace(prefix: String(cString: $0)) } ?? .other : resolved
    }
}
