import CTagLib
import Glibc

/// Writes `EpisodeTags` into a media file with TagLib's C API: ID3v2.4 for MP3, iTunes atoms for
/// MP4, Vorbis comments for Ogg Vorbis, Opus and FLAC. Runs after the file was checked against
/// what the server and the feed said and before it gets its final name: on the `FileDigester`'s
/// thread, or on the batch's when the feed's digest had to be checked first.
enum TagWriter {
    /// How tagging a file ended.
    enum Outcome: Equatable, Sendable {
        /// The tags are in the file, which now holds `bytes`; its SHA-256 when it was taken while
        /// the file was rewritten (nil: the file was changed in place, read it to know).
        case tagged(sha256: [UInt8]?, bytes: Int64)
        /// The file is as it was, for this reason (one line): a format TagLib is not asked to tag,
        /// a file it cannot read, or a write that failed.
        case untagged(String)
    }

    /// TagLib's process-wide choices, made once before its first use.
    private static let configured: Void = podcast_taglib_configure()

    /// Writes `tags` into the file at `path`.
    static func write(_ tags: EpisodeTags, to path: String) -> Outcome {
        guard let format = format(of: path) else {
            return .untagged("not a format podcast tags (MP3, M4A/MP4, Ogg Vorbis, Opus, FLAC)")
        }
        switch format {
        case .mp3: return ID3Splice.write(at: path) { head in write(tags, toMPEG: head) }
        case .mp4: return inCopy(of: path) { write(tags, to: $0, type: TagLib_File_MP4) }
        case .vorbis: return inCopy(of: path) { write(tags, to: $0, type: TagLib_File_OggVorbis) }
        case .flac: return inCopy(of: path) { write(tags, to: $0, type: TagLib_File_FLAC) }
        // TagLib 1.13's C API has no Opus type: it chooses by the extension, which the copy has.
        case .opus: return inCopy(of: path, fileExtension: "opus") { write(tags, toNamed: $0) }
        }
    }

    /// The file's format from its first bytes; nil when it is not one TagLib is asked to tag.
    static func format(of path: String) -> MediaFormat? {
        var header: [UInt8] = []
        try? FileIO.read(path, pieceSize: MediaFormat.headerBytes) { bytes in
            header = Array(bytes)
            return false
        }
        return MediaFormat.sniff(header)
    }

    /// Writes `tags` into the MPEG file at `path` in place: for the first bytes of an MP3, which
    /// `ID3Splice` then puts in front of its audio.
    static func write(_ tags: EpisodeTags, toMPEG path: String) -> Outcome {
        write(tags, to: path, type: TagLib_File_MPEG)
    }

    private static func write(_ tags: EpisodeTags, to path: String, type: TagLib_File_Type) -> Outcome {
        _ = configured
        guard let file = podcast_taglib_open(path, type) else { return .untagged("TagLib cannot open it") }
        return write(tags, into: file)
    }

    private static func write(_ tags: EpisodeTags, toNamed path: String) -> Outcome {
        _ = configured
        guard let file = podcast_taglib_open_by_name(path) else { return .untagged("TagLib cannot open it") }
        return write(tags, into: file)
    }

    /// Tags a copy of the file at `path` (made inside the kernel) with `tag`, then renames it over
    /// the file: TagLib rewrites the files it tags in place, and a crash meanwhile would leave a
    /// file that is neither as served nor tagged, which nothing would notice. Now it leaves a
    /// temporary file that `podcast clean` removes.
    private static func inCopy(of path: String, fileExtension: String? = nil, _ tag: (String) -> Outcome) -> Outcome {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        let copy = ProcessTemporary.path(in: folder, for: path + "\ntagged copy", fileExtension: fileExtension)
        defer { unlink(copy) }
        do {
            guard let size = FileIO.regularFileSize(path) else { throw SystemError(call: "stat", path: path, code: ENOENT) }
            try FileIO.writeNewFile(copy, from: [.range(0..<size, of: path)])
        } catch {
            return .untagged("\(error)")
        }
        let outcome = tag(copy)
        guard case .tagged = outcome else { return outcome }
        guard rename(copy, path) == 0 else { return .untagged(SystemError.last("rename", path: path).description) }
        return .tagged(sha256: nil, bytes: FileIO.regularFileSize(path) ?? 0)
    }

    /// Sets every tag and saves; frees `file` in any case.
    private static func write(_ tags: EpisodeTags, into file: UnsafeMutablePointer<TagLib_File>) -> Outcome {
        defer { taglib_file_free(file) }
        guard podcast_taglib_is_valid(file) == 1, let tag = taglib_file_tag(file) else {
            return .untagged("TagLib cannot read it as the format its first bytes say")
        }
        taglib_tag_set_title(tag, tags.title)
        taglib_tag_set_album(tag, tags.album)
        if let artist = tags.artist { taglib_tag_set_artist(tag, artist) }
        if let year = tags.year, year > 0 { taglib_tag_set_year(tag, UInt32(year)) }
        if let track = tags.track, track > 0 { taglib_tag_set_track(tag, UInt32(track)) }
        taglib_tag_set_genre(tag, tags.genre)
        if let comment = tags.comment { taglib_tag_set_comment(tag, comment) }
        guard podcast_taglib_save(file) == 1 else { return .untagged("TagLib could not save the tags") }
        return .tagged(sha256: nil, bytes: 0)
    }
}
