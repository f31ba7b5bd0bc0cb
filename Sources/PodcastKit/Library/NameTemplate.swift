import FoundationEssentials

/// Where a finished episode goes inside the Episodes directory, as the user writes it:
/// `{podcast}/{date} {title}.{ext}` by default. `/` makes folders; each field is made safe as one
/// name (`EpisodeFileName.component`) before it is put in, so no value can add a folder or leave
/// the Episodes directory, and the template itself may not either (no absolute paths, no `..`).
public struct NameTemplate: Sendable, Equatable, CustomStringConvertible {
    /// A value a template can name.
    public enum Field: String, Sendable, CaseIterable {
        case podcast, title, date, year, month, day, episode, season, guid, ext
    }

    /// One part of a folder or file name: text as written, or a field's value.
    enum Piece: Sendable, Equatable {
        case text(String)
        case field(Field)
    }

    /// The template as written.
    public let text: String
    /// Its folders, outermost first, each a sequence of pieces.
    let folders: [[Piece]]
    /// The file name before its final `.{ext}`.
    let stem: [Piece]

    /// The contract's default: a folder per podcast, files named by date and title.
    public static let standard = NameTemplate(
        text: "{podcast}/{date} {title}.{ext}", folders: [[.field(.podcast)]],
        stem: [.field(.date), .text(" "), .field(.title)])

    private init(text: String, folders: [[Piece]], stem: [Piece]) {
        self.text = text
        self.folders = folders
        self.stem = stem
    }

    /// Reads `text`; throws, saying what to change, for a template that names an unknown field,
    /// has a stray brace, a control character, an empty, `.` or `..` folder, starts with `/`, or
    /// does not end with `.{ext}` (the extension keeps players and companion files working).
    public init(_ text: String) throws(NameTemplateError) {
        guard !text.isEmpty else { throw NameTemplateError(template: text, reason: "is empty") }
        guard !text.hasPrefix("/") else {
            throw NameTemplateError(template: text, reason: "starts with /; it is a path inside the Episodes directory, such as {podcast}/{title}.{ext}")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw NameTemplateError(template: text, reason: "contains a control character")
        }
        guard text.hasSuffix(".{ext}") else {
            throw NameTemplateError(template: text, reason: "must end with .{ext}, so files keep their media type's extension")
        }
        var segments: [[Piece]] = []
        for segment in text.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty else { throw NameTemplateError(template: text, reason: "has an empty folder (//)") }
            guard segment != ".", segment != ".." else { throw NameTemplateError(template: text, reason: "has a folder named \(segment)") }
            segments.append(try Self.pieces(of: segment, in: text))
        }
        self.text = text
        folders = segments.dropLast()
        // The last segment ends with `.` and the `ext` field: the rest is the stem.
        stem = Array((segments.last ?? []).dropLast()).droppingTrailingDot()
    }

    /// The template as written.
    public var description: String { text }

    /// The pieces of one folder or file name: text between `{field}`s.
    private static func pieces(of segment: Substring, in template: String) throws(NameTemplateError) -> [Piece] {
        var pieces: [Piece] = []
        var rest = segment
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else {
                throw NameTemplateError(template: template, reason: "has a stray \(rest[open]); braces only go around a field name such as {title}")
            }
            if open > rest.startIndex { pieces.append(.text(String(rest[..<open]))) }
            let name = rest[rest.index(after: open)..<close]
            guard !name.contains("{") else {
                throw NameTemplateError(template: template, reason: "has a stray {; braces only go around a field name such as {title}")
            }
            guard let field = Field(rawValue: String(name)) else {
                let known = Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")
                throw NameTemplateError(template: template, reason: "names an unknown field {\(name)}; the fields are \(known)")
            }
            pieces.append(.field(field))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        return pieces
    }

    /// Where an episode with `values` goes: its folders (none empty: a folder whose fields are
    /// all empty is left out) and its file name, `suffix` (` (2)`…) before the extension. Every
    /// name is at most 255 bytes; the file name leaves room for the longest companion extension,
    /// so `<name>.transcript.html` fits too. `portable` also replaces what FAT, exFAT and SMB refuse.
    public func render(_ values: NameValues, suffix: String = "", portable: Bool = false) -> RenderedName {
        var folderNames: [String] = []
        var podcastFolderCount: Int?
        for pieces in folders {
            guard let name = finish(assemble(pieces, values), portable: portable, limit: EpisodeFileName.maxNameBytes) else { continue }
            folderNames.append(name)
            if pieces.contains(.field(.podcast)) { podcastFolderCount = folderNames.count }
        }
        let reserved = suffix.utf8.count + max(values.fileExtension.utf8.count + 1, Companion.longestExtensionBytes)
        let stemLimit = EpisodeFileName.maxNameBytes - reserved
        let fileStem = finish(assemble(stem, values), portable: portable, limit: stemLimit)
            ?? finish(NameValues.untitledEpisode, portable: portable, limit: stemLimit) ?? "_"
        return RenderedName(
            folders: folderNames, stem: fileStem + suffix, fileExtension: values.fileExtension, podcastFolderCount: podcastFolderCount)
    }

    /// The pieces with every field's value put in, each already one safe name.
    private func assemble(_ pieces: [Piece], _ values: NameValues) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .field(let field): values.safeValue(of: field)
            }
        }.joined()
    }

    /// An assembled name made safe as a whole (literal text of the template included).
    private func finish(_ name: String, portable: Bool, limit: Int) -> String? {
        let cleaned = EpisodeFileName.component(name, fallback: "", reserving: EpisodeFileName.maxNameBytes - limit)
        let result = portable ? EpisodeFileName.trimmed(EpisodeFileName.portable(cleaned), limit: limit) : cleaned
        return result.flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension Array where Element == NameTemplate.Piece {
    /// The pieces without the `.` that came before `{ext}`.
    fileprivate func droppingTrailingDot() -> [NameTemplate.Piece] {
        guard case .text(let text)? = last else { return self }
        let shorter = String(text.dropLast())
        return shorter.isEmpty ? Array(dropLast()) : Array(dropLast()) + [.text(shorter)]
    }
}

/// Where a template put an episode: folders and a file name, relative to the Episodes directory.
public struct RenderedName: Sendable, Equatable {
    /// The folders, outermost first.
    public var folders: [String]
    /// The file name without its extension (suffix included): companions are named after it.
    public var stem: String
    /// The media file's extension, without the dot.
    public var fileExtension: String
    /// How many of `folders` make the podcast's own folder (up to the last that names `{podcast}`);
    /// nil when none does.
    public var podcastFolderCount: Int?

    /// The media file's name.
    public var fileName: String { stem + "." + fileExtension }

    /// The folders and the file name joined with `/`.
    public var relativePath: String { (folders + [fileName]).joined(separator: "/") }

    /// The folder path, relative (empty for the Episodes directory itself).
    public var relativeFolder: String { folders.joined(separator: "/") }
}

/// A name template that cannot be used, and why.
public struct NameTemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The template as given.
    public var template: String
    /// What is wrong, and what to do.
    public var reason: String

    /// One line for the user.
    public var description: String { "the name template \"\(template)\" \(reason)" }
}
