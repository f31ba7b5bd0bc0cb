import PodcastText

/// A `Content-Range` header (RFC 9110 §14.4): which bytes of the whole a 206 carries, or, in a
/// 416, how long the whole is.
struct ContentRange: Equatable {
    /// The first byte carried, counted from 0; nil in an unsatisfied range (`bytes */T`).
    var first: Int64?
    /// The last byte carried; nil in an unsatisfied range.
    var last: Int64?
    /// The whole representation's length, when the server says (`*` means it does not).
    var total: Int64?

    /// Parses `bytes 0-99/1000`, `bytes 0-99/*` and `bytes */1000`; nil for anything else.
    init?(_ header: String?) {
        guard let header else { return nil }
        let text = header.trimmingWhitespace()
        guard text.lowercased().hasPrefix("bytes "), let slash = text.lastIndex(of: "/") else { return nil }
        let range = text[text.index(text.startIndex, offsetBy: 6)..<slash].trimmingWhitespace()
        let length = text[text.index(after: slash)...].trimmingWhitespace()
        if length == "*" {
            total = nil
        } else {
            guard let value = Int64(length), value >= 0 else { return nil }
            total = value
        }
        if range == "*" {
            guard total != nil else { return nil }
            return
        }
        let bounds = range.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, first <= last,
            total.map({ last < $0 }) ?? true
        else { return nil }
        self.first = first
        self.last = last
    }
}
