/// A single byte range from a `Range` header (RFC 9110 §14.1.2).
enum RangeRequest: Equatable {
    /// `bytes=N-`: from offset N to the end.
    case from(Int)
    /// `bytes=N-M`: offsets N through M inclusive.
    case between(Int, Int)
    /// `bytes=-S`: the last S bytes.
    case suffix(Int)

    /// The outcome of applying a range to a representation of known length.
    enum Resolution: Equatable {
        /// Send these offsets with 206.
        case satisfiable(Range<Int>)
        /// Send 416 with `Content-Range: bytes */length`.
        case unsatisfiable
    }

    /// Parses a single range; nil for several ranges or anything malformed, which the server answers with the full body.
    init?(header: String) {
        let value = header.trimmingSpacesAndTabs()
        guard value.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = value.dropFirst("bytes=".count).trimmingSpacesAndTabs()
        // A multipart/byteranges answer is more than these tests need; RFC 9110 lets a server ignore Range instead.
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingSpacesAndTabs()
        let last = spec[spec.index(after: dash)...].trimmingSpacesAndTabs()
        switch (Self.offset(first), Self.offset(last)) {
        case (let start?, nil) where last.isEmpty:
            self = .from(start)
        case (let start?, let end?) where start <= end:
            self = .between(start, end)
        case (nil, let length?) where first.isEmpty:
            self = .suffix(length)
        default:
            return nil
        }
    }

    /// The offsets to send from a body of `length` bytes, or unsatisfiable when none of the range lies inside it.
    func resolve(length: Int) -> Resolution {
        switch self {
        case .from(let start):
            return start < length ? .satisfiable(start..<length) : .unsatisfiable
        case .between(let start, let end):
            return start < length ? .satisfiable(start..<(min(end, length - 1) + 1)) : .unsatisfiable
        case .suffix(let count):
            return count > 0 && length > 0 ? .satisfiable(max(0, length - count)..<length) : .unsatisfiable
        }
    }

    /// A non-negative decimal offset; nil for empty or non-digit text, and for values too large for Int.
    private static func offset(_ text: String) -> Int? {
        guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(text)
    }
}
