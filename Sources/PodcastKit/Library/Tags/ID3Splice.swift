import CFileSystem
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

    /// Replaces the file at `path` (complete, `size` bytes) by its tagged copy as `plan` says: the
    /// new tag, its audio up to `audioEnd`, the trailer. The copy is made beside it and renamed
    /// over it, so the file is either the old one or the whole new one. Returns the new size.
    static func rebuild(_ path: String, as plan: Plan, audioEnd: Int64) throws(SystemError) -> Int64 {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        let rebuilt = ProcessTemporary.path(in: folder, for: path + "\ntagged")
        defer { unlink(rebuilt) }
        let output = open(rebuilt, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw .last("open", path: rebuilt) }
        defer { close(output) }
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .last("open", path: path) }
        defer { close(input) }
        try write(plan.tag, to: output, path: rebuilt)
        try copy(from: input, plan.oldTagLength..<audioEnd, to: output, paths: (path, rebuilt))
        try write(plan.trailer, to: output, path: rebuilt)
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

    private static func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("write", path: path)
            }
            offset += count
        }
    }

    /// Copies `range` of `input` to `output` inside the kernel; through a buffer where the file
    /// system cannot.
    private static func copy(from input: Int32, _ range: Range<Int64>, to output: Int32, paths: (input: String, output: String)) throws(SystemError) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let count = podcast_copy_range(input, offset, output, range.upperBound - offset)
            if count < 0 {
                if errno == EINTR { continue }
                if [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP].contains(errno) {
                    return try copyThroughBuffer(from: input, offset..<range.upperBound, to: output, paths: paths)
                }
                throw .last("copy_file_range", path: paths.output)
            }
            guard count > 0 else { throw SystemError(call: "copy_file_range", path: paths.input, code: EIO) }
            offset += count
        }
    }

    private static func copyThroughBuffer(from input: Int32, _ range: Range<Int64>, to output: Int32, paths: (input: String, output: String)) throws(SystemError) {
        var buffer = [UInt8](repeating: 0, count: 1024 * 1024)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = Int(min(Int64(buffer.count), range.upperBound - offset))
            let count = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("pread", path: paths.input)
            }
            guard count > 0 else { throw SystemError(call: "pread", path: paths.input, code: EIO) }
            try write(Array(buffer[..<count]), to: output, path: paths.output)
            offset += Int64(count)
        }
    }
}
