import CTagLib
import Glibc
import PodcastPlatform
import PodcastText

/// Writes `EpisodeTags` with TagLib's C API: ID3v2.4 for MP3, iTunes atoms for MP4, Vorbis
/// comments for Ogg Vorbis, Opus and FLAC. Runs after the file was checked against what the server
/// and the feed said and before it gets its final name, on the `FilePreparer`'s thread.
///
/// The file as served is never changed: the tags go into a copy beside it (`taggedPath`), which
/// the batch puts in place instead, and only then removes the served file. Until the tagged copy
/// is recorded, the partial file is the one its record describes, so a crash can never leave a
/// resume appending served bytes to a tagged file. An MP3's copy is built around TagLib's tag
/// (`ID3Splice`), not rewritten by TagLib.
enum TagWriter {
    /// How tagging a file ended.
    enum Outcome: Equatable, Sendable {
        /// The tagged copy.
        case tagged(TaggedFile)
        /// The file is as it was, for this reason (one line): a format TagLib is not asked to tag,
        /// a file it cannot read, or a write that failed.
        case untagged(String)
    }

    /// Writes `tags` into a copy of the file at `served`.
    static func write(_ tags: EpisodeTags, to served: String) -> Outcome {
        guard let format = format(of: served) else {
            return .untagged("not a format podcast tags (MP3, M4A/MP4, Ogg Vorbis, Opus, FLAC)")
        }
        switch format {
        case .mp3: return ID3Splice.write(served, into: taggedPath(of: served)) { write(tags, to: $0, type: TagLib_File_MPEG) }
        case .mp4: return inCopy(of: served) { write(tags, to: $0, type: TagLib_File_MP4) }
        case .vorbis: return inCopy(of: served) { write(tags, to: $0, type: TagLib_File_OggVorbis) }
        case .flac: return inCopy(of: served) { write(tags, to: $0, type: TagLib_File_FLAC) }
        // TagLib 1.13's C API has no Opus type: it chooses by the extension, which the copy has.
        case .opus: return inCopy(of: served, fileExtension: "opus") { write(tags, to: $0, type: nil) }
        }
    }

    /// Where the tagged copy of the file at `served` goes: beside it, named for this process, so
    /// one a crash left behind is swept (`OrphanedPartials`).
    static func taggedPath(of served: String, fileExtension: String? = nil) -> String {
        ProcessTemporary.path(in: FileIO.folder(of: served), for: served + "\ntagged", fileExtension: fileExtension)
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

    /// Writes `tags` into the file at `path` opened as `type`, or as its extension says when nil;
    /// nil when it did, else why not.
    private static func write(_ tags: EpisodeTags, to path: String, type: TagLib_File_Type?) -> String? {
        if let why = podcast_taglib_load_error() { return String(cString: why) }
        let file = if let type { podcast_taglib_open(path, type) } else { podcast_taglib_open_by_name(path) }
        guard let file else { return "TagLib cannot open it" }
        return write(tags, into: file)
    }

    /// Copies the file at `served` (inside the kernel) to its `taggedPath` and has `tag` write the
    /// tags into the copy, which TagLib rewrites in place; the copy is removed when that fails.
    private static func inCopy(of served: String, fileExtension: String? = nil, _ tag: (String) -> String?) -> Outcome {
        let copy = taggedPath(of: served, fileExtension: fileExtension)
        do {
            guard let size = FileIO.regularFileSize(served) else { throw SystemError(call: "stat", path: served, code: ENOENT) }
            try FileIO.writeNewFile(copy, from: [.range(0..<size, of: served)])
            if let why = tag(copy) {
                // Ownership: the tagged copy this call made.
                unlink(copy)
                return .untagged(why)
            }
            guard let bytes = FileIO.regularFileSize(copy) else { throw SystemError(call: "stat", path: copy, code: ENOENT) }
            return .tagged(TaggedFile(path: copy, bytes: bytes))
        } catch {
            // Ownership: the tagged copy this call made.
            unlink(copy)
            return .untagged("\(error)")
        }
    }

    /// Sets every tag and saves; frees `file` in any case. Nil when saved, else why not. The
    /// texts leave the program in the file: the secrets of the URLs in them (show notes quote
    /// links) are masked, as in all podcast writes out.
    private static func write(_ tags: EpisodeTags, into file: UnsafeMutablePointer<TagLib_File>) -> String? {
        defer { podcast_taglib_free(file) }
        guard podcast_taglib_is_valid(file) == 1, let tag = podcast_taglib_tag(file) else {
            return "TagLib cannot read it as the format its first bytes say"
        }
        let text = SecretRedactor.redacted
        podcast_taglib_set_title(tag, text(tags.title))
        podcast_taglib_set_album(tag, text(tags.album))
        if let artist = tags.artist { podcast_taglib_set_artist(tag, text(artist)) }
        if let year = tags.year, year > 0 { podcast_taglib_set_year(tag, UInt32(year)) }
        if let track = tags.track, track > 0 { podcast_taglib_set_track(tag, UInt32(track)) }
        podcast_taglib_set_genre(tag, tags.genre)
        if let comment = tags.comment { podcast_taglib_set_comment(tag, text(comment)) }
        guard podcast_taglib_save(file) == 1 else { return "TagLib could not save the tags" }
        return nil
    }
}

/// A tagged copy of a served file, beside it: what goes into place instead of it.
struct TaggedFile: Equatable, Sendable {
    var path: String
    /// Its size.
    var bytes: Int64
}
