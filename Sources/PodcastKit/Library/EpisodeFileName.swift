import FoundationEssentials
import PodcastText

/// The rules that make text safe as one name in the Episodes directory: every field of a name
/// template goes through them, so no title, guid or podcast name can make a folder, hide a file or
/// leave the Episodes directory.
public enum EpisodeFileName {
    /// The longest name Linux file systems take, in bytes.
    static let maxNameBytes = 255

    /// The extension for a media type or, failing that, the URL's own; `mp3` when neither says.
    public static func fileExtension(mediaType: String?, url: String) -> String {
        let type = mediaType?.split(separator: ";").first.map { String($0).trimmingWhitespace().lowercased() }
        if let type, let known = byMediaType[type] { return known }
        return urlExtension(url) ?? "mp3"
    }

    /// The extension of the URL's last path segment (1 to 5 letters or digits, lowercased), if any.
    static func urlExtension(_ url: String) -> String? {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = last.lastIndex(of: ".") else { return nil }
        let candidate = last[last.index(after: dot)...].lowercased()
        guard (1...5).contains(candidate.count), candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return candidate
    }

    /// `text` made into one name: slashes and backslashes become `-` (so `four / five` stays
    /// readable as `four - five`), control characters go, no leading dots, dashes or spaces (no
    /// hidden files, nothing that reads as an option), no trailing dots or spaces, at most
    /// `maxNameBytes - reserving` bytes (cut on a character boundary); `fallback` when nothing is left.
    static func component(_ text: String, fallback: String, reserving: Int = 0) -> String {
        let limit = maxNameBytes - reserving
        if isSafeAsIs(text, limit: limit) { return text }
        var cleaned = String.UnicodeScalarView()
        for scalar in text.singleLine().unicodeScalars {
            switch scalar {
            case "/", "\\": cleaned.append("-")
            case _ where scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format:
                continue
            default: cleaned.append(scalar)
            }
        }
        return trimmed(String(cleaned), limit: limit) ?? fallback
    }

    /// `name` without leading dots, dashes and spaces or trailing dots and spaces, cut to `limit`
    /// bytes on a character boundary; nil when nothing is left.
    static func trimmed(_ name: String, limit: Int = maxNameBytes) -> String? {
        var name = Substring(name).drop { $0 == "." || $0 == " " || $0 == "-" }
        var result = ""
        for character in name {
            guard result.utf8.count + String(character).utf8.count <= limit else { break }
            result.append(character)
        }
        name = Substring(result)
        while name.last == " " || name.last == "." { name = name.dropLast() }
        return name.isEmpty ? nil : String(name)
    }

    /// `name` with what FAT, exFAT and SMB refuse replaced (`--portable-names`): `": "` becomes
    /// `" - "`, any other `:` and `* < > | \` become `-`, `?` goes, `"` becomes `'`; a name Windows
    /// reserves for a device (`CON`, `NUL`, `COM1`, `LPT³`, `CONIN$`…, with any extension) gets a `_`. Runs of
    /// spaces left behind become one.
    static func portable(_ name: String) -> String {
        guard name.contains(where: { portableReplacements[$0] != nil || $0 == ":" }) || isReservedOnWindows(name) else { return name }
        var result = ""
        var characters = Substring(name)
        while let character = characters.popFirst() {
            if character == ":" {
                result += characters.first == " " ? " -" : "-"
            } else if let replacement = portableReplacements[character] {
                result += replacement
            } else {
                result.append(character)
            }
        }
        while result.contains("  ") { result = result.replacing("  ", with: " ") }
        if isReservedOnWindows(result) { result = "_" + result }
        return result
    }

    private static let portableReplacements: [Character: String] = [
        "*": "-", "<": "-", ">": "-", "|": "-", "\\": "-", "?": "", "\"": "'",
    ]

    /// True for a name Windows reserves for a device (`reservedOnWindows`), alone or before a dot,
    /// in any case, with spaces around it: Windows and SMB servers refuse such files.
    static func isReservedOnWindows(_ name: String) -> Bool {
        reservedOnWindows.contains(name.prefix { $0 != "." }.uppercased().trimmingWhitespace())
    }

    /// Every device name Windows reserves, as Microsoft's "Naming Files, Paths, and Namespaces"
    /// lists them: `CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9` and `LPT0`–`LPT9`, with the
    /// superscript digits ¹ ² ³ that Windows also reads as digits, and the console's `CONIN$`
    /// and `CONOUT$`.
    static let reservedOnWindows: Set<String> = {
        let digits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u{B9}", "\u{B2}", "\u{B3}"]
        return Set(["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"] + ["COM", "LPT"].flatMap { port in digits.map { port + $0 } })
    }()

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
