/// How large one file (an episode's, a companion's) may grow on disk before its transfer is
/// stopped, and which limit that is. An endless body, or a compressed one that expands without
/// end, must not fill the disk.
///
/// Every limit counts the bytes written (decoded, when the server compresses). A length the server
/// gives for the file itself is enforced by libcurl; what it cannot enforce is a body with no
/// length, or a compressed body whose length counts compressed bytes. Such a body may run past the
/// length we know (the server's, else the feed's) by a wide margin, since feeds are often wrong,
/// and never past the request's cap (`TransferRequest.maxSize`).
struct BodyLimit: Equatable {
    /// What a request's cap is, for the line that tells a body ran past it: only an episode's can
    /// be raised, and a companion told to raise `--max-size` would be told wrong.
    enum Cap: Equatable {
        /// `max-episode-size` (`--max-size`), which the user sets.
        case maxEpisodeSize
        /// The fixed limit of companion files (`CompanionFile.maxBytes`), which no setting changes.
        case companionFile
    }

    /// Why a body is stopped.
    enum Limit: Equatable {
        /// The request's cap, `maxSize`.
        case cap(Cap)
        /// Far past the length the server announced (a compressed body's, for one that expands).
        case serverLength(Int64)
        /// Far past the length the feed announced, the server having announced none.
        case feedLength(Int64)
    }

    /// The most bytes the file may hold.
    var bytes: Int64
    /// Which limit that is.
    var limit: Limit

    /// The margin over a known length: twice the length, and at least 64 MiB more, so that a feed
    /// that is wrong by a factor, or a placeholder length, never stops a real episode. A length
    /// is the server's or the feed's word, anything up to Int64's end: past it, the margin is
    /// Int64's end (which the cap is under), never an overflow that ends the process.
    static func margin(over length: Int64) -> Int64 {
        let (far, overflow) = length.addingReportingOverflow(max(length, 64 * 1024 * 1024))
        return overflow ? .max : far
    }

    /// The limit for a body whose server announced `serverLength` (nil: none, or only a
    /// compressed length when `encoded`), for an enclosure the feed says is `feedLength` bytes,
    /// the request's cap being `maxSize` bytes of `cap`.
    static func forBody(serverLength: Int64?, feedLength: Int64?, maxSize: Int64, cap kind: Cap) -> BodyLimit {
        let cap = BodyLimit(bytes: maxSize, limit: .cap(kind))
        let known: Limit? = if let serverLength { .serverLength(serverLength) } else if let feedLength, feedLength > 0 { .feedLength(feedLength) } else { nil }
        switch known {
        case .serverLength(let length)?, .feedLength(let length)?:
            let far = margin(over: length)
            return far < cap.bytes ? BodyLimit(bytes: far, limit: known!) : cap
        default:
            return cap
        }
    }

    /// One line for the user: what stopped the file at `bytes`, and what to do.
    func reason(url: String) -> String {
        switch limit {
        case .cap(.maxEpisodeSize):
            return "the file from \(url) is larger than the max-episode-size limit (\(ByteCount.text(bytes))); "
                + "raise it with --max-size or max-episode-size in the configuration file"
        case .cap(.companionFile):
            return "the file from \(url) is larger than \(ByteCount.text(bytes)), the fixed limit of companion files "
                + "(transcripts, chapters, artwork); nothing was kept"
        case .serverLength(let length):
            return "the server sent far more than the \(ByteCount.text(length)) it announced for \(url) "
                + "(stopped at \(ByteCount.text(bytes))); nothing was kept"
        case .feedLength(let length):
            return "the server sent far more than the \(ByteCount.text(length)) the feed announced for \(url), "
                + "with no length of its own (stopped at \(ByteCount.text(bytes))); nothing was kept"
        }
    }
}
