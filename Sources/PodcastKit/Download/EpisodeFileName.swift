import FoundationEssentials

/// Where a finished episode goes: `<Podcast title>/<date> <episode title>.<ext>` inside the
/// Episodes directory, with names that are safe on disk and can never leave that directory.
public enum EpisodeFileName {
    /// The longest name Linux file systems take, in bytes.
    static let maxNameBytes = 255

    /// The folder name for a podcast's episodes.
    public static func folder(podcastTitle: String) -> String {
        component(podcastTitle, fallback: "Untitled podcast", reserving: 0)
    }

    /// The file name for an episode: its date (when known), title and extension; `suffix` (such as
    /// " (2)") tells apart two episodes that would otherwise share a name.
    public static func file(title: String, published: Date?, mediaType: String?, url: String, suffix: String = "") -> String {
        let fileExtension = "." + self.fileExtension(mediaType: mediaType, url: url)
        let cleaned = component(title, fallback: "Untitled episode", reserving: 0)
        let dated = published.map { UTCDate.day($0) + " " + cleaned } ?? cleaned
        let reserved = suffix.utf8.count + fileExtension.utf8.count
        return component(dated, fallback: "Untitled episode", reserving: reserved) + suffix + fileExtension
    }

    /// The extension for a media type or, failing that, the URL's own; `mp3` when neither says.
    public static func fileExtension(mediaType: String?, url: String) -> String {
        let type = mediaType?.split(separator: ";").first.map { String($0).trimmingWhitespace().lowercased() }
        if let type, let known = byMediaType[type] { return known }
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        if let dot = last.lastIndex(of: ".") {
            let candidate = last[last.index(after: dot)...].lowercased()
            if (1...5).contains(candidate.count), candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                return candidate
            }
        }
        return "mp3"
    }

    /// `text` made into one path component: path segments joined with `-` (`.` and `..` dropped),
    /// no control characters, no leading dots or spaces, at most `maxNameBytes - reserving` bytes
    /// (cut on a character boundary).
    static func component(_ text: String, fallback: String, reserving: Int) -> String {
        if isSafeAsIs(text, limit: maxNameBytes - reserving) { return text }
        var cleaned = String.UnicodeScalarView()
        for scalar in text.singleLine().unicodeScalars {
            switch scalar {
            case "\\": cleaned.append("/")
            case _ where scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format:
                continue
            default: cleaned.append(scalar)
            }
        }
        let segments = String(cleaned).split(separator: "/").map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty && $0 != "." && $0 != ".." }
        var name = segments.joined(separator: "-").drop { $0 == "." || $0 == " " || $0 == "-" }
        while name.last == " " || name.last == "." { name = name.dropLast() }
        if name.isEmpty { name = Substring(fallback) }
        let limit = maxNameBytes - reserving
        var result = ""
        for character in name {
            guard result.utf8.count + String(character).utf8.count <= limit else { break }
            result.append(character)
        }
        return result
    }

    /// True for text that `component` returns as it is, nearly every title: printable ASCII
    /// without slashes, with single inner spaces, starting with none of ` .-`, ending with
    /// neither ` ` nor `.`, at most `limit` bytes. Checked first: the general rules work on
    /// Unicode scalars and cost far more.
    private static func isSafeAsIs(_ text: String, limit: Int) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= limit,
            first != UInt8(ascii: " "), first != UInt8(ascii: "."), first != UInt8(ascii: "-"),
            last != UInt8(ascii: " "), last != UInt8(ascii: ".")
        else { return false }
        var previousWasSpace = false
        for byte in bytes {
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "/"), byte != UInt8(ascii: "\\") else { return false }
            let isSpace = byte == UInt8(ascii: " ")
            if isSpace && previousWasSpace { return false }
            previousWasSpace = isSpace
        }
        return true
    }

    private static let byMediaType: [String: String] = [
        "audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/mpeg3": "mp3", "audio/x-mpeg": "mp3",
        "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/m4a": "m4a", "audio/aac": "aac", "audio/x-aac": "aac",
        "audio/ogg": "ogg", "audio/vorbis": "ogg", "audio/opus": "opus", "audio/flac": "flac", "audio/x-flac": "flac",
        "audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav",
        "video/mp4": "mp4", "video/x-m4v": "m4v", "video/quicktime": "mov", "video/webm": "webm",
        "application/pdf": "pdf",
    ]
}
