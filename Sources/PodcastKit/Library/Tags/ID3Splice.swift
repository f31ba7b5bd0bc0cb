import Glibc

/// Tags an MP3 without TagLib moving its audio. TagLib puts a new ID3v2 tag in front of a file
/// by shifting everything after it 1 KiB at a time: seconds for a 64 MiB episode. Here TagLib tags
/// a copy of the file's first bytes (its old tag and some audio), and the file is rebuilt once,
/// the new tag then the audio then TagLib's ID3v1 tag, in large pieces, and hashed on the way,
/// so the digest `podcast verify` checks costs no further read.
enum ID3Splice {
    /// Audio copied with the old tag for TagLib to work on: enough for it to find the first frames.
    static let headAudioBytes = 64 * 1024
    /// Bytes copied at once.
    static let pieceSize = 1024 * 1024

    /// The length of the ID3v2 tag `header` (a file's first 10 bytes) starts, footer included;
    /// 0 when it starts none.
    static func tagLength(_ header: [UInt8]) -> Int {
        guard header.count >= 10, header[0] == UInt8(ascii: "I"), header[1] == UInt8(ascii: "D"), header[2] == UInt8(ascii: "3"),
            header[6...9].allSatisfy({ $0 < 0x80 })
        else { return 0 }
        let size = Int(header[6]) << 21 | Int(header[7]) << 14 | Int(header[8]) << 7 | Int(header[9])
        return 10 + size + (header[5] & 0x10 != 0 ? 10 : 0)
    }

    /// Tags the MP3 at `path` with `tags` (through `tag`, which runs TagLib on the path it is
    /// given): the file is replaced by its tagged copy (by a rename, so it is either the old file
    /// or the whole new one), whose size and SHA-256 are returned.
    static func write(at path: String, tag: (String) -> TagWriter.Outcome) -> TagWriter.Outcome {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        let head = ProcessTemporary.path(in: folder, for: path + "\ntag head")
        let rebuilt = ProcessTemporary.path(in: folder, for: path + "\ntagged")
        defer {
            unlink(head)
            unlink(rebuilt)
        }
        do {
            guard let size = FileIO.regularFileSize(path) else { throw SystemError(call: "stat", path: path, code: ENOENT) }
            let oldTag = Int64(tagLength(try FileIO.bytes(of: path, in: 0..<min(10, size))))
            // An ID3v1 tag ends the file: TagLib writes its own.
            let tail = try FileIO.bytes(of: path, in: max(0, size - 128)..<size)
            let audioEnd = tail.starts(with: Array("TAG".utf8)) && size - 128 >= oldTag ? size - 128 : size
            guard oldTag < audioEnd else { return .untagged("it holds no audio after its tag") }
            let headEnd = min(oldTag + Int64(headAudioBytes), audioEnd)
            try FileIO.writeNewFile(head, contents: try FileIO.bytes(of: path, in: 0..<headEnd))
            if case .untagged(let why) = tag(head) { return .untagged(why) }
            let tagged = try FileIO.bytes(of: head, in: 0..<(FileIO.regularFileSize(head) ?? 0))
            let newTag = tagLength(Array(tagged.prefix(10)))
            let audioInHead = Int(headEnd - oldTag)
            let trailer = tagged.count == newTag + audioInHead + 128 ? Array(tagged.suffix(128)) : []
            guard newTag > 0, tagged.count == newTag + audioInHead + trailer.count, trailer.isEmpty || trailer.starts(with: Array("TAG".utf8))
            else { return .untagged("TagLib wrote the tag in a way podcast does not splice") }
            var digest = SHA2(.sha256)
            let written = try rebuild(
                rebuilt, tag: Array(tagged.prefix(newTag)), audio: (path, oldTag..<audioEnd), trailer: trailer, digest: &digest)
            guard rename(rebuilt, path) == 0 else { throw SystemError.last("rename", path: path) }
            return .tagged(sha256: digest.finish(), bytes: written)
        } catch {
            return .untagged("\(error)")
        }
    }

    /// Writes `tag`, the `audio` range of its file and `trailer` to a new file at `path`, hashing
    /// every byte into `digest`; returns how many bytes it wrote.
    private static func rebuild(
        _ path: String, tag: [UInt8], audio: (path: String, range: Range<Int64>), trailer: [UInt8], digest: inout SHA2
    ) throws -> Int64 {
        let output = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw SystemError.last("open", path: path) }
        defer { close(output) }
        let input = open(audio.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw SystemError.last("open", path: audio.path) }
        defer { close(input) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 64)
        defer { buffer.deallocate() }
        var written: Int64 = 0
        func emit(_ bytes: UnsafeRawBufferPointer) throws {
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(output, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw SystemError.last("write", path: path)
                }
                offset += count
            }
            digest.update(bytes)
            written += Int64(bytes.count)
        }
        try tag.withUnsafeBytes { try emit($0) }
        var offset = audio.range.lowerBound
        while offset < audio.range.upperBound {
            let count = pread(input, buffer.baseAddress, min(pieceSize, Int(audio.range.upperBound - offset)), off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError.last("pread", path: audio.path)
            }
            guard count > 0 else { throw SystemError(call: "pread", path: audio.path, code: EIO) }
            try emit(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
        }
        try trailer.withUnsafeBytes { try emit($0) }
        return written
    }
}
