import Foundation
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Synchronization
import Testing

/// The digests of finished files, taken beside the downloads.
@Suite(.timeLimit(.minutes(5))) struct FileDigesterTests {
    @Test func everyFileAskedForGetsItsSHA256AndAMissingOneNil() throws {
        let directory = try TemporaryDirectory(prefix: "digester")
        let bodies = (1...5).map { Data((0..<(100_000 * $0)).map { UInt8(truncatingIfNeeded: $0 &* 7) }) }
        for (index, body) in bodies.enumerated() { try body.write(to: URL(filePath: directory.path("\(index).part"))) }
        let delivered = Mutex<[Int: [UInt8]?]>([:])
        let digester = FileDigester { id, file in delivered.withLock { $0[id] = file.sha256 } }
        for index in bodies.indices { digester.complete(index, path: directory.path("\(index).part"), bytes: Int64(bodies[index].count)) }
        digester.complete(99, path: directory.path("missing.part"), bytes: 10)
        digester.shutdown()
        let digests = delivered.withLock { $0 }
        #expect(digests.count == 6)
        for (index, body) in bodies.enumerated() {
            var expected = SHA2(.sha256)
            body.withUnsafeBytes { expected.update($0) }
            #expect(digests[index] == .some(expected.finish()))
        }
        #expect(digests[99] == .some(nil))
    }

    @Test func piecesAreTakenAsTheyArriveAndAStartOverBeginsAgain() throws {
        let directory = try TemporaryDirectory(prefix: "digester")
        let path = directory.path("grow.part")
        let old = Data(repeating: 1, count: 300_000)
        let new = Data((0..<500_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let delivered = Mutex<[UInt8]?>(nil)
        let digester = FileDigester { _, file in delivered.withLock { $0 = file.sha256 } }
        try old.write(to: URL(filePath: path))
        digester.filled(1, path: path, bytes: 300_000)
        digester.shutdown()
        // A fresh digester sees the file shrink (it started over with other bytes) and grow again.
        let again = FileDigester { _, file in delivered.withLock { $0 = file.sha256 } }
        again.filled(1, path: path, bytes: 300_000)
        try new.prefix(100_000).write(to: URL(filePath: path))
        again.rewinding(1, to: 0)
        again.filled(1, path: path, bytes: 100_000)
        try new.write(to: URL(filePath: path))
        again.filled(1, path: path, bytes: 400_000)
        again.complete(1, path: path, bytes: 500_000)
        again.shutdown()
        var expected = SHA2(.sha256)
        new.withUnsafeBytes { expected.update($0) }
        #expect(delivered.withLock { $0 } == expected.finish())
    }

    /// The digest lets the page cache drop what it has read, one piece behind (written by then):
    /// a large download keeps little in memory, and no page is dropped before the digest has
    /// read it, which would make it read the file back from the disk.
    @Test func pagesReadAreDroppedOnePieceBehind() throws {
        let directory = try TemporaryDirectory(prefix: "digester")
        let path = directory.path("large.part")
        let piece = Int(Transfer.filledPiece)
        let body = Data((0..<(3 * piece)).map { UInt8(truncatingIfNeeded: $0 &* 29) })
        try body.write(to: URL(filePath: path))
        try FileIO.syncData(path)
        let digester = FileDigester { _, _ in }
        digester.filled(1, path: path, bytes: Int64(3 * piece))
        digester.shutdown()
        let resident = try Self.residentPages(of: path)
        let pages = resident.count / 3
        #expect(resident[..<(2 * pages)].allSatisfy { !$0 }, "the pieces read and written are dropped")
        #expect(resident[(2 * pages)...].allSatisfy { $0 }, "the last piece read stays until the next")
    }

    /// Which of the pages of the file at `path` are in the page cache (`mincore`).
    static func residentPages(of path: String) throws -> [Bool] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw SystemError.last("open", path: path) }
        defer { close(descriptor) }
        let size = Int(FileIO.regularFileSize(path) ?? 0)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED else {
            throw SystemError.last("mmap", path: path)
        }
        defer { munmap(mapping, size) }
        var vector = [UInt8](repeating: 0, count: (size + pageSize - 1) / pageSize)
        guard mincore(mapping, size, &vector) == 0 else { throw SystemError.last("mincore", path: path) }
        return vector.map { $0 & 1 == 1 }
    }

    /// MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz: 417 bytes each) with varied payloads,
    /// after an ID3v2 tag of `tagBytes` bytes when not 0, and an ID3v1 tag at the end when asked.
    static func mp3(frames: Int, tagBytes: Int, trailer: Bool = true, seed: UInt8) -> Data {
        var data = Data()
        if tagBytes > 0 {
            let size = tagBytes - 10
            data += Data("ID3".utf8) + [4, 0, 0] + [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)]
            data += Data(repeating: 0, count: size)
        }
        for frame in 0..<frames {
            data += [0xFF, 0xFB, 0x90, 0x64]
            data += (0..<413).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ frame &* 7 &+ Int(seed)) }
        }
        return trailer ? data + Data("TAG".utf8) + Data(repeating: UInt8(ascii: "x"), count: 125) : data
    }

    static let tags = EpisodeTags(title: "Ünïcode — Title", album: "Show", artist: "Host", year: 2026, track: 7, comment: "Notes")

    /// The tagged file `file` leads to: its digest is the one delivered, its audio the served audio
    /// (`audio`) between TagLib's two tags. Where the file system inserts blocks (ext4 and XFS,
    /// as /tmp here) the digester leaves the tags to be spliced into the served file itself as the
    /// batch places it, which this does as the batch does: the same file (inode) becomes the tagged
    /// one and no served file is left to resume. Elsewhere it made a copy and the served file is
    /// as it was.
    static func expectTagged(_ file: DigestedFile, of served: Data, audio: Range<Int>, at path: String) throws {
        let folder = FileIO.folder(of: path)
        #expect(try Data(contentsOf: URL(filePath: path)) == served, "the served file is not changed under its name")
        let tagged: String
        let digest: [UInt8]?
        switch file.tagging {
        case .spliceInPlace(let splice, let sha256)?:
            let servedFile = try #require(Self.inode(of: path))
            tagged = TagWriter.taggedPath(of: path)
            #expect(try splice.make(at: tagged, from: path) == splice.taggedBytes)
            #expect(Self.inode(of: tagged) == servedFile, "spliced in place, not copied")
            #expect(!FileManager.default.fileExists(atPath: path), "no served file is left to resume")
            digest = sha256
        case .tagged(let copy)?:
            #expect(!InPlaceSplice.insertsRanges(inFolder: folder), "a copy where the tags could go in place")
            tagged = copy.path
            digest = copy.sha256
            #expect(copy.bytes == FileIO.regularFileSize(copy.path))
            unlink(path)
        default:
            Issue.record("not tagged: \(String(describing: file.tagging))")
            return
        }
        let result = try Data(contentsOf: URL(filePath: tagged))
        var expected = SHA2(.sha256)
        result.withUnsafeBytes { expected.update($0) }
        #expect(digest == expected.finish())
        let newTag = Int(ID3Splice.tagLength(Array(result.prefix(10))))
        #expect(newTag > 0)
        #expect(result.subdata(in: newTag..<result.count - 128) == served.subdata(in: audio), "the audio as served")
        #expect(result.suffix(128).starts(with: Data("TAG".utf8)), "TagLib's ID3v1 tag")
        unlink(tagged)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [], "no other copy left")
    }

    /// The inode number of the file at `path`: the same file under another name keeps it.
    static func inode(of path: String) -> UInt64? {
        var status = stat()
        return stat(path, &status) == 0 ? UInt64(status.st_ino) : nil
    }

    /// An MP3 to be tagged is hashed as it arrives, as it will be once tagged: with and without
    /// an old ID3v2 tag and an old ID3v1 tag, in one piece or many, and under 64 KiB (planned
    /// when complete).
    @Test(arguments: [(2_048, true, 600), (0, true, 600), (2_048, false, 600), (0, false, 600), (600, true, 40)])
    func anMP3IsHashedAsItWillBeOnceTagged(tagBytes: Int, trailer: Bool, frames: Int) throws {
        let directory = try TemporaryDirectory(prefix: "digester")
        let path = directory.path("episode.part")
        let served = Self.mp3(frames: frames, tagBytes: tagBytes, trailer: trailer, seed: 2)
        let delivered = Mutex<DigestedFile?>(nil)
        let digester = FileDigester { _, file in delivered.withLock { $0 = file } }
        // The file grows as the engine's does, by appending: rewritten whole (truncated first),
        // it was now and then read back half written, which no download does.
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let file = try FileHandle(forWritingTo: URL(filePath: path))
        var written = 0
        for piece in [70_000, 200_000] where piece < served.count {
            try file.write(contentsOf: served[written..<piece])
            written = piece
            digester.filled(1, path: path, bytes: Int64(piece), tagging: Self.tags)
        }
        try file.write(contentsOf: served[written...])
        try file.close()
        digester.complete(1, path: path, bytes: Int64(served.count), tagging: Self.tags)
        digester.shutdown()
        let digested = try #require(delivered.withLock { $0 })
        try Self.expectTagged(digested, of: served, audio: tagBytes..<(served.count - (trailer ? 128 : 0)), at: path)
    }

    /// Where the file system cannot insert blocks (tmpfs), an MP3 whose new tag needs more room
    /// than its old one is tagged on a copy, written from the reads that hash it.
    @Test(.enabled(if: FileIO.isInMemory("/dev/shm"), "no tmpfs at /dev/shm"))
    func whereNoBlocksCanBeInsertedTheTagsGoIntoACopy() throws {
        let directory = "/dev/shm/podcast-digester-\(UUID().uuidString)"
        try FileIO.makeDirectory(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(!InPlaceSplice.insertsRanges(inFolder: directory))
        let path = directory + "/episode.part"
        let served = Self.mp3(frames: 600, tagBytes: 0, seed: 4)
        try served.write(to: URL(filePath: path))
        let delivered = Mutex<DigestedFile?>(nil)
        let digester = FileDigester { _, file in delivered.withLock { $0 = file } }
        digester.filled(1, path: path, bytes: 100_000, tagging: Self.tags)
        digester.complete(1, path: path, bytes: Int64(served.count), tagging: Self.tags)
        digester.shutdown()
        let file = try #require(delivered.withLock { $0 })
        guard case .tagged? = file.tagging else {
            Issue.record("not a copy: \(String(describing: file.tagging))")
            return
        }
        try Self.expectTagged(file, of: served, audio: 0..<(served.count - 128), at: path)
    }

    /// A start over with other bytes, after the plan was made from the first ones, plans again.
    @Test func aStartOverPlansAgain() throws {
        let directory = try TemporaryDirectory(prefix: "digester")
        let path = directory.path("episode.part")
        let old = Self.mp3(frames: 300, tagBytes: 0, seed: 1)
        let served = Self.mp3(frames: 600, tagBytes: 2_048, seed: 2)
        let delivered = Mutex<DigestedFile?>(nil)
        let digester = FileDigester { _, file in delivered.withLock { $0 = file } }
        // Each version replaces the last whole (renamed over it): the digester never finds the
        // file empty between two writes, which no download shows it either.
        try old.prefix(100_000).write(to: URL(filePath: path))
        digester.filled(1, path: path, bytes: 100_000, tagging: Self.tags)
        try served.prefix(70_000).write(to: URL(filePath: path), options: .atomic)
        digester.rewinding(1, to: 0)
        digester.filled(1, path: path, bytes: 70_000, tagging: Self.tags)
        try served.write(to: URL(filePath: path), options: .atomic)
        digester.complete(1, path: path, bytes: Int64(served.count), tagging: Self.tags)
        digester.shutdown()
        let file = try #require(delivered.withLock { $0 })
        try Self.expectTagged(file, of: served, audio: 2_048..<(served.count - 128), at: path)
    }

    /// A tag header that claims 256 MiB is not read into memory: the file is kept as served.
    @Test func anID3TagClaimingHundredsOfMegabytesIsNotReadIntoMemory() throws {
        let directory = try TemporaryDirectory(prefix: "digester")
        let path = directory.path("episode.part")
        var served = Self.mp3(frames: 300, tagBytes: 0, seed: 3)
        served.insert(contentsOf: Data("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F], at: 0)
        try served.write(to: URL(filePath: path))
        let delivered = Mutex<DigestedFile?>(nil)
        let digester = FileDigester { _, file in delivered.withLock { $0 = file } }
        digester.complete(1, path: path, bytes: Int64(served.count), tagging: Self.tags)
        digester.shutdown()
        let file = try #require(delivered.withLock { $0 })
        #expect(file.tagging == .untagged("its ID3v2 tag says it is larger than 16 MiB"))
        var expected = SHA2(.sha256)
        served.withUnsafeBytes { expected.update($0) }
        #expect(file.sha256 == expected.finish())
    }

    /// Bytes TagLib is not asked to tag are delivered as served, with the reason.
    @Test func aFileOfNoTaggableFormatIsDeliveredAsServedWithTheReason() throws {
        let directory = try TemporaryDirectory(prefix: "digester")
        let path = directory.path("episode.part")
        let served = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) })
        try served.write(to: URL(filePath: path))
        let delivered = Mutex<DigestedFile?>(nil)
        let digester = FileDigester { _, file in delivered.withLock { $0 = file } }
        digester.filled(1, path: path, bytes: 100_000, tagging: Self.tags)
        digester.complete(1, path: path, bytes: 150_000, tagging: Self.tags)
        digester.shutdown()
        var expected = SHA2(.sha256)
        served.withUnsafeBytes { expected.update($0) }
        let file = try #require(delivered.withLock { $0 })
        #expect(file.sha256 == expected.finish())
        #expect(file.tagging == .untagged("not a format podcast tags (MP3, M4A/MP4, Ogg Vorbis, Opus, FLAC)"))
        #expect(try Data(contentsOf: URL(filePath: path)) == served)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["episode.part"], "no copy left")
    }
}
