import Foundation
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

/// An MP3's tags spliced into the served file itself: the padding that makes the room whole
/// blocks, the splice on a file system that inserts them (ext4 here), its undoing when the disk
/// refuses a block, and a copy instead on one that cannot insert (tmpfs).
@Suite(.timeLimit(.minutes(5))) struct InPlaceSpliceTests {
    /// An ID3v2 tag of `length` bytes, version `version`: its header, then frame-like bytes (no
    /// zero byte, which would read as padding).
    static func tag(length: Int, version: UInt8 = 4, flags: UInt8 = 0) -> [UInt8] {
        let footer = flags & 0x10 != 0
        let size = length - 10 - (footer ? 10 : 0)
        let header: [UInt8] = Array("ID3".utf8) + [version, 0, flags] + [21, 14, 7, 0].map { UInt8(size >> $0 & 0x7F) }
        let frames = (0..<size).map { UInt8(truncatingIfNeeded: 65 + $0 % 26) }
        return header + frames + (footer ? Array("3DI".utf8) + Array(header[3...]) : [])
    }

    static let trailer = Array("TAG".utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: 125)

    /// The type of the file system holding `path`, as /proc/self/mountinfo names it ("ext4",
    /// "xfs", "tmpfs"): read independently of the code under test.
    static func fileSystemType(of path: String) -> String? {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        var best: (mountPoint: String, type: String)?
        for line in table.split(separator: "\n") {
            let halves = line.components(separatedBy: " - ")
            let fields = halves[0].split(separator: " ")
            guard halves.count == 2, fields.count > 4, let type = halves[1].split(separator: " ").first else { continue }
            let mountPoint = String(fields[4])
            let inside = path == mountPoint || path.hasPrefix(mountPoint == "/" ? "/" : mountPoint + "/")
            if inside, mountPoint.count >= (best?.mountPoint.count ?? 0) { best = (mountPoint, String(type)) }
        }
        return best?.type
    }

    static let temporaryFolder = FileManager.default.temporaryDirectory.path
    static let insertingFileSystem = ["ext4", "xfs"].contains(fileSystemType(of: temporaryFolder) ?? "")

    @Test(arguments: [(300, 0, 4_096), (300, 2_048, 2_048), (5_000, 2_048, 6_144), (300, 10_000, 10_000), (4_096, 0, 4_096)])
    func aTagIsPaddedToFillTheOldOneOrWholeBlocksMore(length: Int, oldTag: Int, expected: Int) {
        let tag = Self.tag(length: length)
        let padded = ID3Splice.padded(tag, covering: Int64(oldTag))
        #expect(padded.count == expected)
        #expect(ID3Splice.tagLength(Array(padded.prefix(10))) == Int64(expected), "the header counts the padding")
        #expect(padded[..<6] == tag[..<6] && padded[10..<length] == tag[10...], "the frames as TagLib wrote them")
        #expect(padded[length...].allSatisfy { $0 == 0 }, "zero bytes of padding")
        #expect(ID3Splice.Plan(oldTagLength: Int64(oldTag), tag: padded, trailer: []).fitsInPlace)
    }

    /// ID3v2.3 pads the same way; a footer (no padding may follow the frames), an extended header
    /// (its CRC or padding size would change) or another version leave the tag as it is, and
    /// such a plan is made on a copy.
    @Test func onlyATagPaddingCanFollowIsPadded() {
        #expect(ID3Splice.padded(Self.tag(length: 300, version: 3), covering: 0).count == 4_096)
        for tag in [Self.tag(length: 300, flags: 0x10), Self.tag(length: 300, flags: 0x40), Self.tag(length: 300, version: 2)] {
            #expect(ID3Splice.padded(tag, covering: 0) == tag)
            #expect(!ID3Splice.Plan(oldTagLength: 0, tag: tag, trailer: []).fitsInPlace)
        }
    }

    /// The served file, the plan for it, and the tagged file the plan makes of it.
    struct Case: Sendable, CustomTestStringConvertible {
        var oldTag: Int
        var servedTrailer: Bool
        var newTag: Int
        var newTrailer: Bool

        var served: Data { FileDigesterTests.mp3(frames: 300, tagBytes: oldTag, trailer: servedTrailer, seed: 9) }
        var plan: ID3Splice.Plan {
            ID3Splice.Plan(
                oldTagLength: Int64(oldTag), tag: ID3Splice.padded(InPlaceSpliceTests.tag(length: newTag), covering: Int64(oldTag)),
                trailer: newTrailer ? InPlaceSpliceTests.trailer : [])
        }
        var splice: InPlaceSplice { InPlaceSplice(plan: plan, audioEnd: Int64(served.count - (servedTrailer ? 128 : 0))) }
        var tagged: Data { Data(plan.tag) + served[oldTag..<Int(splice.audioEnd)] + Data(plan.trailer) }
        var testDescription: String { "old tag \(oldTag), old ID3v1 \(servedTrailer), new tag \(newTag), new ID3v1 \(newTrailer)" }
    }

    static let cases = [
        Case(oldTag: 0, servedTrailer: true, newTag: 300, newTrailer: true),  // room inserted, trailer replaced
        Case(oldTag: 0, servedTrailer: false, newTag: 300, newTrailer: true),  // room inserted, the file grows
        Case(oldTag: 2_048, servedTrailer: false, newTag: 300, newTrailer: true),  // fits in the old tag
        Case(oldTag: 600, servedTrailer: true, newTag: 5_000, newTrailer: false),  // the old ID3v1 tag goes
    ]

    @Test(.enabled(if: insertingFileSystem, "the temporary folder is not on ext4 or XFS"), arguments: cases)
    func theServedFileItselfBecomesTheTaggedOne(_ example: Case) throws {
        let directory = try TemporaryDirectory(prefix: "splice")
        #expect(InPlaceSplice.insertsRanges(inFolder: directory.path))
        let served = directory.path("episode.part")
        let staged = directory.path("staged")
        try example.served.write(to: URL(filePath: served))
        let inode = FileDigesterTests.inode(of: served)
        #expect(try example.splice.make(at: staged, from: served) == Int64(example.tagged.count))
        #expect(FileDigesterTests.inode(of: staged) == inode, "the same file, not a copy")
        #expect(!FileManager.default.fileExists(atPath: served), "no served file left to resume")
        #expect(try Data(contentsOf: URL(filePath: staged)) == example.tagged)
    }

    /// A block the disk refuses once the room is inserted (here: the file would pass ext4's
    /// largest size, 2³² − 1 blocks) undoes the insertion: the served file is back under its
    /// name, as it was, and nothing is left under the other.
    @Test(.enabled(if: fileSystemType(of: temporaryFolder) == "ext4", "the temporary folder is not on ext4"))
    func aRefusedBlockLeavesTheServedFileAsItWas() throws {
        let directory = try TemporaryDirectory(prefix: "splice")
        let served = directory.path("episode.part")
        let staged = directory.path("staged")
        var system = statvfs()
        #expect(statvfs(directory.path, &system) == 0)
        let largest = Int64((1 << 32) - 1) * Int64(system.f_bsize)
        // Sparse, and with no ID3v1 tag: splicing it in makes the file grow past the largest size.
        let size = largest - InPlaceSplice.unit - 64
        #expect(FileManager.default.createFile(atPath: served, contents: Data("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]))
        #expect(truncate(served, off_t(size)) == 0)
        let plan = ID3Splice.Plan(oldTagLength: 10, tag: ID3Splice.padded(Self.tag(length: 300), covering: 10), trailer: Self.trailer)
        #expect(plan.room == InPlaceSplice.unit)
        #expect(throws: SystemError(call: "fallocate", path: staged, code: EFBIG)) {
            try InPlaceSplice(plan: plan, audioEnd: size).make(at: staged, from: served)
        }
        #expect(FileIO.regularFileSize(served) == size)
        #expect(try FileIO.bytes(of: served, in: 0..<10) == Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0], "the served bytes where they were")
        #expect(try FileIO.names(in: directory.path) == ["episode.part"])
    }

    /// tmpfs cannot insert: the served file stays as it was under its own name, and the tagged
    /// file is a copy with the very bytes a splice gives.
    @Test(.enabled(if: fileSystemType(of: "/dev/shm") == "tmpfs", "no tmpfs at /dev/shm"), arguments: cases)
    func whereNoBlocksCanBeInsertedTheTaggedFileIsACopy(_ example: Case) throws {
        let directory = "/dev/shm/podcast-splice-\(UUID().uuidString)"
        try FileIO.makeDirectory(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(!InPlaceSplice.insertsRanges(inFolder: directory))
        let served = directory + "/episode.part"
        let staged = directory + "/staged"
        try example.served.write(to: URL(filePath: served))
        #expect(try example.splice.make(at: staged, from: served) == Int64(example.tagged.count))
        #expect(try Data(contentsOf: URL(filePath: served)) == example.served, "the served file as it was")
        #expect(FileDigesterTests.inode(of: staged) != FileDigesterTests.inode(of: served))
        #expect(try Data(contentsOf: URL(filePath: staged)) == example.tagged)
    }
}
