import PodcastText

/// A file podcast can keep beside an episode's media (`--with`): never media itself, never an
/// episode of its own, named after the media file (`<name>.srt`, `<name>.info.json`…) so players
/// and media apps find it.
public enum Companion: String, Sendable, CaseIterable, Comparable {
    /// The best transcript the feed offers (`podcast:transcript`), in the user's order of types.
    case transcript
    /// The chapters file (`podcast:chapters`, JSON).
    case chapters
    /// The episode's artwork (else the show's), and the show's once per podcast folder as `cover.<ext>`.
    case image
    /// `<name>.info.json`: the episode's and the podcast's details, as `episodes --json` gives them.
    case info

    /// Room a media file's name leaves for its companions' extensions: `.transcript.html` is the
    /// longest (16 bytes).
    static let longestExtensionBytes = 16

    /// Reads a list such as `transcript,chapters` (or the words of a configuration array); throws
    /// with the words it knows for any other word.
    public static func set(from words: [String]) throws(LibraryValueError) -> Set<Companion> {
        var set: Set<Companion> = []
        for word in words.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingWhitespace().lowercased() }) where !word.isEmpty {
            guard let companion = Companion(rawValue: word) else {
                throw LibraryValueError("\"\(word)\" is not a companion file; choose from " + allCases.map(\.rawValue).joined(separator: ", "))
            }
            set.insert(companion)
        }
        return set
    }

    /// The list as `set(from:)` reads it, in a stable order.
    static func list(_ set: Set<Companion>) -> String {
        set.sorted().map(\.rawValue).joined(separator: ",")
    }

    /// In the order of `allCases`, as lists are written.
    public static func < (left: Companion, right: Companion) -> Bool {
        allCases.firstIndex(of: left) ?? 0 < allCases.firstIndex(of: right) ?? 0
    }
}

/// A transcript's format, by which the best of an episode's transcripts is chosen.
public enum TranscriptFormat: String, Sendable, CaseIterable {
    case srt, vtt, json, html, text

    /// The format of a transcript of `mediaType` at `url` (the URL's extension when the type says
    /// nothing known); nil when neither tells.
    public init?(mediaType: String?, url: String) {
        let type = mediaType?.split(separator: ";").first.map { String($0).trimmingWhitespace().lowercased() } ?? ""
        switch type {
        case "application/srt", "application/x-subrip", "text/srt", "application/x-srt", "text/x-srt": self = .srt
        case "text/vtt": self = .vtt
        case "application/json": self = .json
        case "text/html": self = .html
        case "text/plain": self = .text
        default:
            switch EpisodeFileName.urlExtension(url) {
            case "srt": self = .srt
            case "vtt": self = .vtt
            case "json": self = .json
            case "html", "htm": self = .html
            case "txt": self = .text
            default: return nil
            }
        }
    }

    /// The companion file's extension: `srt` and `vtt` as players expect them beside the media;
    /// the others say they are a transcript (`<name>.json` would say nothing).
    var fileExtension: String {
        switch self {
        case .srt: "srt"
        case .vtt: "vtt"
        case .json: "transcript.json"
        case .html: "transcript.html"
        case .text: "transcript.txt"
        }
    }

    /// The transcript of `transcripts` whose format comes first in `order`; nil when none is of a
    /// format in it.
    public static func best(of transcripts: [Transcript], order: [TranscriptFormat]) -> (transcript: Transcript, format: TranscriptFormat)? {
        let known = transcripts.compactMap { transcript in TranscriptFormat(mediaType: transcript.type, url: transcript.url).map { (transcript, $0) } }
        for format in order {
            if let match = known.first(where: { $0.1 == format }) { return (match.0, match.1) }
        }
        return nil
    }

    /// Reads an order such as `srt,vtt` (or a configuration array's words); throws for any other word.
    public static func order(from words: [String]) throws(LibraryValueError) -> [TranscriptFormat] {
        var order: [TranscriptFormat] = []
        for word in words.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingWhitespace().lowercased() }) where !word.isEmpty {
            guard let format = TranscriptFormat(rawValue: word) else {
                throw LibraryValueError("\"\(word)\" is not a transcript type; choose from " + allCases.map(\.rawValue).joined(separator: ", "))
            }
            if !order.contains(format) { order.append(format) }
        }
        guard !order.isEmpty else { throw LibraryValueError("name at least one transcript type: " + allCases.map(\.rawValue).joined(separator: ", ")) }
        return order
    }
}

/// A value for a library setting (`--with`, `--transcript-types`) that cannot be used.
public struct LibraryValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to write instead.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
