import Glibc
import PodcastPlatform

/// Tags an MP3 without TagLib moving its audio. TagLib puts a new ID3v2 tag in front of a file
/// by shifting everything after it 1 KiB at a time: seconds for a 64 MiB episode. Here TagLib tags
/// a copy of the file's first bytes (its old tag and some audio), which gives the `Plan`: the new
/// tag to put in place of the old one, and the ID3v1 tag to end the file with. The new tag is
/// padded so that the room it needs beyond the old one is none or whole file system blocks: then
/// the served file itself takes it (`InPlaceSplice`), its audio never copied, where the file
/// system can insert blocks (ext4, XFS). Elsewhere the tagged file is built once beside the
/// served one, the audio copied by the kernel; both ways give the same bytes.
///
/// The plan needs only the first bytes, so the `FileDigester` makes it while the rest still
/// arrives and hashes the file as it will be once tagged; the tagged file waits for the complete,
/// checked one.
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
        /// TagLib's ID3v2 tag, which starts the tagged file.
        var tag: [UInt8]
        /// TagLib's ID3v1 tag, which ends it (empty: none).
        var trailer: [UInt8]

        /// The tagged file's size, for a served file whose audio ends at `audioEnd`.
        func taggedBytes(audioEnd: Int64) -> Int64 {
            Int64(tag.count) + (audioEnd - oldTagLength) + Int64(trailer.count)
        }

        /// The room the new tag needs beyond the old one's: what goes in front of the audio.
        var room: Int64 { Int64(tag.count) - oldTagLength }

        /// True when the served file can take the new tag itself: it fits where the old one was,
        /// or the room it needs is whole blocks a file system can insert (`InPlaceSplice`).
        var fitsInPlace: Bool { room >= 0 && room % InPlaceSplice.unit == 0 }

        /// Where the audio of the served file ends, given its size and its last bytes (`tail`):
        /// before an old ID3v1 tag, which TagLib's replaces.
        func audioEnd(size: Int64, tail: [UInt8]) -> Int64 {
            tail.count == trailerBytes && tail.starts(with: Array("TAG".utf8)) && size - trailerBytes >= oldTagLength
                ? size - trailerBytes : size
        }
    }

    /// The plan, or why it cannot be made yet, or at all.
    enum Planning: Equatable {
        case planned(Plan)
        /// The file holds too few bytes to plan from; ask again with more.
        case needsMoreBytes
        /// The file is not tagged, for this reason (one line).
        case untagged(String)
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

    /// Plans tagging the MP3 at `path`, which holds `available` bytes (all of it when `complete`),
    /// through `tag`, which runs TagLib on the path of a copy of the file's first bytes (nil when
    /// it wrote the tags, else why not). Until
    /// then the file has to hold its old tag, `headAudioBytes` of audio and a possible ID3v1 tag
    /// more, so that no byte TagLib sees can still change or turn out to be that trailer.
    static func plan(_ path: String, available: Int64, complete: Bool, tag: (String) -> String?) -> Planning {
        do {
            let oldTag = tagLength(try FileIO.bytes(of: path, in: 0..<min(10, available)))
            // The head is read into memory: a tag header claiming up to 256 MiB must not make it so.
            guard oldTag <= maxOldTagBytes else {
                return .untagged("its ID3v2 tag says it is larger than \(maxOldTagBytes / 1024 / 1024) MiB")
            }
            let audioEnd: Int64
            if complete {
                let tail = try FileIO.bytes(of: path, in: max(0, available - trailerBytes)..<available)
                audioEnd = Plan(oldTagLength: oldTag, tag: [], trailer: []).audioEnd(size: available, tail: tail)
                guard oldTag < audioEnd else { return .untagged("it holds no audio after its tag") }
            } else {
                guard available >= oldTag + headAudioBytes + trailerBytes else { return .needsMoreBytes }
                audioEnd = available - trailerBytes
            }
            let headEnd = min(oldTag + headAudioBytes, audioEnd)
            let head = ProcessTemporary.path(in: FileIO.folder(of: path), for: path + "\ntag head")
            // Ownership: the scratch file this splice made.
            defer { unlink(head) }
            try FileIO.writeNewFile(head, contents: try FileIO.bytes(of: path, in: 0..<headEnd))
            if let why = tag(head) { return .untagged(why) }
            guard let headSize = FileIO.regularFileSize(head) else { throw SystemError(call: "stat", path: head, code: ENOENT) }
            let tagged = try FileIO.bytes(of: head, in: 0..<headSize)
            let newTag = Int(tagLength(Array(tagged.prefix(10))))
            let audioInHead = Int(headEnd - oldTag)
            let trailer = tagged.count == newTag + audioInHead + Int(trailerBytes) ? Array(tagged.suffix(Int(trailerBytes))) : []
            guard newTag > 0, tagged.count == newTag + audioInHead + trailer.count, trailer.isEmpty || trailer.starts(with: Array("TAG".utf8))
            else { return .untagged("TagLib wrote the tag in a way podcast does not splice") }
            return .planned(Plan(oldTagLength: oldTag, tag: padded(Array(tagged.prefix(newTag)), covering: oldTag), trailer: trailer))
        } catch {
            return .untagged("\(error)")
        }
    }

    /// `tag` (an ID3v2 tag) with zero bytes of padding added, which ID3v2 allows after the frames,
    /// so that it fills the `oldTagLength` bytes of the tag it replaces, or needs whole
    /// `InPlaceSplice.unit`s more (less than 4 KiB beyond the old tag's room). Left as it is: a
    /// tag with a footer (no padding may follow the frames), with an extended header (whose CRC
    /// or padding size would have to change too), of a version other than 2.3 or 2.4, or one
    /// whose header does not give its length.
    static func padded(_ tag: [UInt8], covering oldTagLength: Int64) -> [UInt8] {
        let length = Int64(tag.count)
        guard length >= 10, tag[3] == 3 || tag[3] == 4, tag[5] & 0x50 == 0, tagLength(Array(tag.prefix(10))) == length else { return tag }
        let unit = InPlaceSplice.unit
        let padded = length <= oldTagLength ? oldTagLength : oldTagLength + (length - oldTagLength + unit - 1) / unit * unit
        let size = padded - 10
        guard size < 1 << 28 else { return tag }
        var result = tag
        result.replaceSubrange(6..<10, with: [21, 14, 7, 0].map { UInt8(size >> $0 & 0x7F) })
        result += repeatElement(0, count: Int(padded - length))
        return result
    }

    /// Builds the tagged copy of the complete file at `served` at `tagged`, as `plan` says: the
    /// new tag, the served audio up to `audioEnd`, the trailer. Returns its size.
    static func build(_ tagged: String, from served: String, as plan: Plan, audioEnd: Int64) throws(SystemError) -> Int64 {
        try FileIO.writeNewFile(tagged, from: [.bytes(plan.tag), .range(plan.oldTagLength..<audioEnd, of: served), .bytes(plan.trailer)])
        return plan.taggedBytes(audioEnd: audioEnd)
    }

    /// Tags the complete MP3 at `served` in one go: for a file the `FileDigester` did not plan,
    /// one that had to be checked against the feed's digest first. The plan, for the batch to
    /// splice into the served file as it places it, where it fits there; else a copy at `tagged`.
    static func write(_ served: String, into tagged: String, tag: (String) -> String?) -> TagWriter.Outcome {
        guard let size = FileIO.regularFileSize(served) else { return .untagged("\(SystemError(call: "stat", path: served, code: ENOENT))") }
        switch plan(served, available: size, complete: true, tag: tag) {
        case .planned(let plan):
            do {
                let tail = try FileIO.bytes(of: served, in: max(0, size - trailerBytes)..<size)
                let audioEnd = plan.audioEnd(size: size, tail: tail)
                if InPlaceSplice.fits(plan, inFolder: FileIO.folder(of: served)) {
                    return .spliceInPlace(InPlaceSplice(plan: plan, audioEnd: audioEnd), sha256: nil)
                }
                let bytes = try build(tagged, from: served, as: plan, audioEnd: audioEnd)
                return .tagged(TaggedFile(path: tagged, bytes: bytes, sha256: nil))
            } catch {
                // Ownership: the tagged file this splice made, not yet placed.
                unlink(tagged)
                return .untagged("\(error)")
            }
        case .untagged(let why): return .untagged(why)
        case .needsMoreBytes: return .untagged("it is too short to tag")
        }
    }
}
