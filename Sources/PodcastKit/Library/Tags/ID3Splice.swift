import Glibc

/// Tags an MP3 without TagLib moving its audio. TagLib puts a new ID3v2 tag in front of a file
/// by shifting everything after it 1 KiB at a time: seconds for a 64 MiB episode. Here TagLib tags
/// a copy of the file's first bytes (its old tag and some audio), which gives the `Plan`: the new
/// tag to put in place of the old one, and the ID3v1 tag to end the file with. The file is then
/// rebuilt once, the audio copied by the kernel.
///
/// The plan needs only the first bytes, so the `FileDigester` makes it while the rest still
/// arrives and hashes the file as it will be once tagged; the rebuild waits for the complete,
/// checked file.
enum ID3Splice {
    /// Audio copied with the old tag for TagLib to work on: enough for it to find the first frames.
    static let headAudioBytes: Int64 = 64 * 1024
    /// An ID3v1 tag: the last 128 bytes of a file, starting "TAG".
    static let trailerBytes: Int64 = 128

    /// What tagging an MP3 changes: its old ID3v2 tag gives way to TagLib's, and TagLib's ID3v1
    /// tag ends it in place of any old one. The audio in between is the bytes as served.
    struct Plan: Equatable, Sendable {
        /// The length of the served file's ID3v2 tag (0: it has none): where its audio starts.
        var oldTagLength: Int64
        /// TagLib's ID3v2 tag, which starts the tagged file.
        var tag: [UInt8]
        /// TagLib's ID3v1 tag, which ends it (empty: none).
        var trailer: [UInt8]

        /// Where the audio of the served file ends, given its size and its last bytes (`tail`):
        /// before an old ID3v1 tag, which TagLib's replaces.
        func audioEnd(size: Int64, tail: [UInt8]) -> Int64 {
            tail.count == trailerBytes && tail.starts(with: Array("TAG".utf8)) && size - trailerBytes >= oldTagLength
                ? size - trailerBytes : size
        }
    }

    /// Why a plan cannot be made yet, or at all.
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
    /// through `tag`, which runs TagLib on the path of a copy of the file's first bytes. Until
    /// then the file has to hold its old tag, `headAudioBytes` of audio and a possible ID3v1 tag
    /// more, so that no byte TagLib sees can still change or turn out to be that trailer.
    static func plan(_ path: String, available: Int64, complete: Bool, tag: (String) -> TagWriter.Outcome) -> Planning {
        do {
            let oldTag = tagLength(try FileIO.bytes(of: path, in: 0..<min(10, available)))
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
            let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
            let head = ProcessTemporary.path(in: folder, for: path + "\ntag head")
            defer { unlink(head) }
            try FileIO.writeNewFile(head, contents: try FileIO.bytes(of: path, in: 0..<headEnd))
            if case .untagged(let why) = tag(head) { return .untagged(why) }
            let tagged = try FileIO.bytes(of: head, in: 0..<(FileIO.regularFileSize(head) ?? 0))
            let newTag = Int(tagLength(Array(tagged.prefix(10))))
            let audioInHead = Int(headEnd - oldTag)
            let trailer = tagged.count == newTag + audioInHead + Int(trailerBytes) ? Array(tagged.suffix(Int(trailerBytes))) : []
            guard newTag > 0, tagged.count == newTag + audioInHead + trailer.count, trailer.isEmpty || trailer.starts(with: Array("TAG".utf8))
            else { return .untagged("TagLib wrote the tag in a way podcast does not splice") }
            return .planned(Plan(oldTagLength: oldTag, tag: Array(tagged.prefix(newTag)), trailer: trailer))
        } catch {
            return .untagged("\(error)")
        }
    }

    /// Replaces the file at `path` (complete) by its tagged copy as `plan` says: the new tag, its
    /// audio up to `audioEnd`, the trailer. The copy is made beside it and renamed over it, so the
    /// file is either the old one or the whole new one. Returns the new size.
    static func rebuild(_ path: String, as plan: Plan, audioEnd: Int64) throws(SystemError) -> Int64 {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        let rebuilt = ProcessTemporary.path(in: folder, for: path + "\ntagged")
        defer { unlink(rebuilt) }
        try FileIO.writeNewFile(rebuilt, from: [.bytes(plan.tag), .range(plan.oldTagLength..<audioEnd, of: path), .bytes(plan.trailer)])
        guard rename(rebuilt, path) == 0 else { throw .last("rename", path: path) }
        return Int64(plan.tag.count) + (audioEnd - plan.oldTagLength) + Int64(plan.trailer.count)
    }

    /// Tags the complete MP3 at `path` in one go (plan, then rebuild): for a file the
    /// `FileDigester` did not plan, one that had to be checked against the feed's digest first.
    static func write(at path: String, tag: (String) -> TagWriter.Outcome) -> TagWriter.Outcome {
        guard let size = FileIO.regularFileSize(path) else { return .untagged("\(SystemError(call: "stat", path: path, code: ENOENT))") }
        switch plan(path, available: size, complete: true, tag: tag) {
        case .planned(let plan):
            do {
                let tail = try FileIO.bytes(of: path, in: max(0, size - trailerBytes)..<size)
                return .tagged(sha256: nil, bytes: try rebuild(path, as: plan, audioEnd: plan.audioEnd(size: size, tail: tail)))
            } catch {
                return .untagged("\(error)")
            }
        case .untagged(let why): return .untagged(why)
        case .needsMoreBytes: return .untagged("it is too short to tag")
        }
    }
}
