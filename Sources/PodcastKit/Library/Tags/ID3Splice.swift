import Glibc
import PodcastPlatform

/// Tags an MP3 without TagLib moving its audio. TagLib puts a new ID3v2 tag in front of a file by
/// shifting everything after it 1 KiB at a time: seconds for a 64 MiB episode (`--tag` on 8 x 64
/// MiB took 2.2 s instead of 0.8 that way). Here TagLib tags a copy of the file's first bytes (its
/// old tag and some audio), which gives the `Plan`: the new tag to put in place of the old one,
/// and the ID3v1 tag to end the file with. The tagged copy is then the new tag, the served audio
/// copied by the kernel (`copy_file_range`), and the trailer.
enum ID3Splice {
    /// Audio copied with the old tag for TagLib to work on: enough for it to find the first frames.
    static let headAudioBytes: Int64 = 64 * 1024
    /// An ID3v1 tag: the last 128 bytes of a file, starting "TAG".
    static let trailerBytes: Int64 = 128
    /// The largest old ID3v2 tag replaced (cover art makes tags of a few MiB); a file whose tag
    /// is larger is kept untagged.
    static let maxOldTagBytes: Int64 = 16 * 1024 * 1024

    /// What tagging an MP3 changes: its old ID3v2 tag gives way to TagLib's, and TagLib's ID3v1
    /// tag ends it in place of any old one. The audio in between is the bytes as served.
    struct Plan: Equatable, Sendable {
        /// The length of the served file's ID3v2 tag (0: it has none): where its audio starts.
        var oldTagLength: Int64
        /// Where its audio ends: before an old ID3v1 tag, which TagLib's replaces.
        var audioEnd: Int64
        /// TagLib's ID3v2 tag, which starts the tagged file.
        var tag: [UInt8]
        /// TagLib's ID3v1 tag, which ends it (empty: none).
        var trailer: [UInt8]

        /// The tagged file's size.
        var taggedBytes: Int64 { Int64(tag.count) + (audioEnd - oldTagLength) + Int64(trailer.count) }
    }

    /// The length of the ID3v2 tag `header` (a file's first 10 bytes) starts, footer included;
    /// 0 when it starts none.
    static func tagLength(_ header: [UInt8]) -> Int64 {
        guard header.count >= 10, header[0] == UInt8(ascii: "I"), header[1] == UInt8(ascii: "D"), header[2] == UInt8(ascii: "3"),
            header[6...9].allSatisfy({ $0 < 0x80 })
        else { return 0 }
        let size = Int64(header[6]) << 21 | Int64(header[7]) << 14 | Int64(header[8]) << 7 | Int64(header[9])
        return 10 + size + (header[5] & 0x10 != 0 ? 10 : 0)
    }

    /// Where the audio of a file of `size` bytes ends, given its last bytes (`tail`) and where its
    /// audio starts (`oldTagLength`): before an old ID3v1 tag.
    static func audioEnd(size: Int64, tail: [UInt8], oldTagLength: Int64) -> Int64 {
        tail.count == trailerBytes && tail.starts(with: Array("TAG".utf8)) && size - trailerBytes >= oldTagLength ? size - trailerBytes : size
    }

    /// Plans tagging the complete MP3 at `path` of `size` bytes through `tag`, which runs TagLib on
    /// the path of a copy of the file's first bytes (nil when it wrote the tags, else why not).
    /// Returns the plan, or why the file is not tagged (one line).
    static func plan(_ path: String, size: Int64, tag: (String) -> String?) -> Result<Plan, Untagged> {
        do {
            let oldTag = tagLength(try FileIO.bytes(of: path, in: 0..<min(10, size)))
            // The head is read into memory: a tag header claiming up to 256 MiB must not make it so.
            guard oldTag <= maxOldTagBytes else {
                return .failure(Untagged("its ID3v2 tag says it is larger than \(maxOldTagBytes / 1024 / 1024) MiB"))
            }
            let tail = try FileIO.bytes(of: path, in: max(0, size - trailerBytes)..<size)
            let audioEnd = audioEnd(size: size, tail: tail, oldTagLength: oldTag)
            guard oldTag < audioEnd else { return .failure(Untagged("it holds no audio after its tag")) }
            let headEnd = min(oldTag + headAudioBytes, audioEnd)
            let head = ProcessTemporary.path(in: FileIO.folder(of: path), for: path + "\ntag head")
            // Ownership: the scratch file this call made.
            defer { unlink(head) }
            try FileIO.writeNewFile(head, contents: try FileIO.bytes(of: path, in: 0..<headEnd))
            if let why = tag(head) { return .failure(Untagged(why)) }
            guard let headSize = FileIO.regularFileSize(head) else { throw SystemError(call: "stat", path: head, code: ENOENT) }
            let tagged = try FileIO.bytes(of: head, in: 0..<headSize)
            let newTag = Int(tagLength(Array(tagged.prefix(10))))
            let audioInHead = Int(headEnd - oldTag)
            let trailer = tagged.count == newTag + audioInHead + Int(trailerBytes) ? Array(tagged.suffix(Int(trailerBytes))) : []
            guard newTag > 0, tagged.count == newTag + audioInHead + trailer.count, trailer.isEmpty || trailer.starts(with: Array("TAG".utf8))
            else { return .failure(Untagged("TagLib wrote the tag in a way podcast does not splice")) }
            return .success(Plan(oldTagLength: oldTag, audioEnd: audioEnd, tag: Array(tagged.prefix(newTag)), trailer: trailer))
        } catch {
            return .failure(Untagged("\(error)"))
        }
    }

    /// Why a file is not tagged, one line.
    struct Untagged: Error, Equatable {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Writes the tagged copy of the complete MP3 at `served` to `tagged`, with the tags `tag`
    /// writes (TagLib, on the file's first bytes).
    static func write(_ served: String, into tagged: String, tag: (String) -> String?) -> TagWriter.Outcome {
        guard let size = FileIO.regularFileSize(served) else { return .untagged("\(SystemError(call: "stat", path: served, code: ENOENT))") }
        switch plan(served, size: size, tag: tag) {
        case .success(let plan):
            do {
                try FileIO.writeNewFile(tagged, from: [.bytes(plan.tag), .range(plan.oldTagLength..<plan.audioEnd, of: served), .bytes(plan.trailer)])
                return .tagged(TaggedFile(path: tagged, bytes: plan.taggedBytes))
            } catch {
                // Ownership: the tagged copy this call made, not yet placed.
                unlink(tagged)
                return .untagged("\(error)")
            }
        case .failure(let untagged):
            return .untagged(untagged.reason)
        }
    }
}
