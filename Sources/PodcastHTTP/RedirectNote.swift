import CCurl

/// A redirect's body (a note for browsers about the move), dropped as it arrives. One-shot
/// requests (`HTTPClient`) and engine transfers (`Transfer`) each have their own write callback;
/// what a note is worth, and when a cut note still counts as a redirect, is decided here once, so
/// the two cannot drift apart.
public struct RedirectNote: Equatable {
    /// The most of a note that is read before the hop is cut short and followed anyway: a server
    /// that sends an endless one must not hold the request.
    static let longest = 64 * 1024

    /// Bytes of the note dropped so far.
    private(set) var dropped = 0

    /// A note of which nothing has arrived yet.
    public init() {}

    /// Drops `length` more bytes of the note; returns what to tell libcurl was taken: all of them,
    /// or 0 once the note has run past `longest` (libcurl then ends the hop with CURLE_WRITE_ERROR).
    public mutating func drop(_ length: Int) -> Int {
        dropped += length
        return isCut ? 0 : length
    }

    /// True once the note has run past `longest` and the hop was cut short.
    var isCut: Bool { dropped > Self.longest }

    /// The hop's result `code` as far as the redirect goes: the write error of a cut note is the
    /// note's end, not a failure (CURLE_OK, and the redirect is followed); any other code stands.
    public func hopResult(_ code: CURLcode) -> CURLcode {
        code == CURLE_WRITE_ERROR && isCut ? CURLE_OK : code
    }
}
