import FoundationEssentials
import PodcastText

/// Makes URLs in a feed absolute against the feed's own URL (RFC 3986 reference resolution).
struct URLResolver: Sendable {
    private let base: URL?

    /// A resolver for references in the document at `documentURL`.
    init(documentURL: String) {
        base = URL(string: documentURL)
    }

    /// `reference` made absolute, trimmed; nil when empty. A reference that is already absolute
    /// comes back as it is; one that cannot be parsed (stray spaces) is percent-encoded first.
    func resolve(_ reference: String) -> String? {
        let trimmed = reference.trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        if Self.hasScheme(trimmed) { return trimmed }
        let escaped = trimmed.contains(" ") ? trimmed.replacing(" ", with: "%20") : trimmed
        guard let base, let url = URL(string: escaped, relativeTo: base) else { return trimmed }
        return url.absoluteString
    }

    /// True when `text` starts with `scheme:` (letters, digits, `+ - .`, starting with a letter).
    private static func hasScheme(_ text: String) -> Bool {
        var sawLetter = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: ":"): return sawLetter
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): sawLetter = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                guard sawLetter else { return false }
            default: return false
            }
        }
        return false
    }
}
