import FoundationEssentials

/// Whether a companion file that arrived whole is what it should be, by its bytes rather than the
/// server's word. A login wall or a CDN's error page comes with status 200 for an episode's
/// artwork or chapters as readily as for its media (which the engine refuses as
/// `htmlInsteadOfMedia`); saved as `.jpg` or `.chapters.json`, it would be a broken file that
/// players choke on, and a later download would take it for the companion and never fetch it again.
/// Pure: the batch reads the file and carries out the verdict.
enum CompanionCheck {
    /// What a companion file must be, and the extension it is saved with.
    enum Content: Equatable {
        /// A JPEG, PNG, WebP or GIF image (artwork, a cover), named by what its bytes are.
        case image
        /// A JSON object (chapters, a JSON transcript), saved as `<name>.<fileExtension>`.
        case json(fileExtension: String)
        /// Text, and not a web page (an SRT, VTT or plain-text transcript).
        case text(fileExtension: String)
        /// An HTML document (an HTML transcript): text, a web page being what it is.
        case html(fileExtension: String)
    }

    /// What to do with it.
    enum Verdict: Equatable {
        /// Save it as `<name>.<fileExtension>`.
        case accepted(fileExtension: String)
        /// Refuse it: why, one line for the user.
        case refused(String)
    }

    /// The verdict on `bytes`, the whole file fetched from `url`, which must be `content`.
    static func verdict(_ content: Content, of bytes: [UInt8], from url: String) -> Verdict {
        let expected = switch content {
        case .image: "a JPEG, PNG, WebP or GIF image"
        case .json: "a JSON document"
        case .text: "subtitles or plain text"
        case .html: "a web page or text"
        }
        guard !bytes.isEmpty else { return .refused("the server sent an empty file for \(url), not \(expected)") }
        let isPage = bytes.withUnsafeBytes(Transfer.looksLikeHTML)
        switch content {
        case .image, .json, .text:
            if isPage { return .refused("the server sent a web page for \(url), not \(expected)") }
        case .html:
            break
        }
        switch content {
        case .image:
            guard let format = imageExtension(of: bytes) else { return .refused("the file from \(url) is not \(expected)") }
            return .accepted(fileExtension: format)
        case .json(let fileExtension):
            guard (try? JSONDecoder().decode([String: Unread].self, from: Data(bytes))) != nil else {
                return .refused("the file from \(url) is not \(expected) (it does not parse as a JSON object)")
            }
            return .accepted(fileExtension: fileExtension)
        case .text(let fileExtension), .html(let fileExtension):
            guard isText(bytes) else { return .refused("the file from \(url) is not \(expected) (it holds binary data)") }
            return .accepted(fileExtension: fileExtension)
        }
    }

    /// The extension of the image `bytes` start like: `jpg`, `png`, `webp` or `gif` (what players
    /// show as artwork); nil for anything else.
    static func imageExtension(of bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return "gif" }
        if bytes.starts(with: Array("RIFF".utf8)), bytes.dropFirst(8).starts(with: Array("WEBP".utf8)) { return "webp" }
        return nil
    }

    /// True when `bytes` read as text: no control characters but tab, line breaks, form feed and
    /// escape, in whatever 8-bit encoding (old SRT files are often Windows-1252, not UTF-8), or
    /// UTF-16 with its byte-order mark.
    static func isText(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { return true }
        return !bytes.contains { byte in
            switch byte {
            case 0x09, 0x0A, 0x0C, 0x0D, 0x1B: false
            case ..<0x20, 0x7F: true
            default: false
            }
        }
    }

    /// Any JSON value, left unread: decoding `[String: Unread]` checks only that a document is a
    /// JSON object (the decoder reads the whole document first, so malformed JSON fails).
    private struct Unread: Decodable {
        init(from decoder: any Decoder) {}
    }
}
