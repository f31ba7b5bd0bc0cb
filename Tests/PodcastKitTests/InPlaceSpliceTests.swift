import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// An MP3's tags spliced into the served file itself: the padding that makes the room whole
/// blocks, the splice on a file system that inserts them (ext4 here), and the refusal, with
/// nothing changed, on one that does not (tmpfs).
@Suite struct InPlaceSpliceTests {
    /// An ID3v2.4 tag of `length` bytes: its header, then frame-like bytes (no zero byte, which
    /// would read as padding).
    static func tag(length: Int, footer: Bool = false) -> [UInt8] {
        let size = length - 10 - (footer ? 10 : 0)
        let header: [UInt8] = Array("ID3".utf8) + [4, 0, footer ? 0x10 : 0] + [21, 14, 7, 0].map { UInt8(size >> $0 & 0x7F) }
        let frames = (0..<size).map { UInt8(truncatingIfNeeded: 65 + $0 % 26) }
        return header + frames + (footer ? Array("3DI".utf8) + Array(header[3...]) : [])
    }

    static let trailer = Array("TAG".utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: 125)

    @Test(arguments: [(300, 0, 4_096), (300, 2_048, 2_048), (5_000, 2_048, 6_144), (300, 10_000, 10_000), (4_096, 0, 4_096)])
    func aTagIsPaddedToFillTheOldOneOrWholeBlocksMore(length: Int, oldTag: Int, expected: Int) {
        let tag = Self.tag(length: length)
        let padded = ID3Splice.padded(tag, covering: Int64(oldTag))
        #expect(padded.count == expected)
        #expect(ID3Splice.tagLength(Array(padded.prefix(10))) == Int64(expected), "the header counts the padding")
        #expect(padded[..<6] == tag[..<6] && padded[10..<length] == tag[10...], "the frames as TagLib wrote them")
        #expect(padded[length...].allSatisfy { $0 == 0 }, "zero bytes of padding")
        let plan = ID3Splice.Plan(oldTagLength: Int64(oldTag), tag: padded, trailer: [])
        #expect(plan.fitsInPlace)
    }

    @Test func aTagWithAFooterIsNotPadded() {
        let tag = Self.tag(length: 300, footer: true)
        #expect(ID3Splice.tagLength(Array(tag.prefix(10))) == 300)
        #expect(ID3Splice.padded(tag, covering: 0) == tag)
        #expect(!ID3Splice.Plan(oldTagLength: 0, tag: tag, trailer: []).fitsInPlace)
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
        var audioEnd: Int64 { Int64(served.count - (servedTrailer ? 128 : 0)) }
        var tagged: Data { Data(plan.tag) + served[oldTag..<Int(audioEnd)] + Data(plan.trailer) }
        var testDescription: String { "old tag \(oldTag), old ID3v1 \(servedTrailer), new tag \(newTag), new ID3v1 \(newTrailer)" }
    }

    static let cases = [
        Case(oldTag: 0, servedTrailer: true, newTag: 300, newTrailer: true),  // room inserted, trailer replaced
        Case(oldTag: 0, servedTrailer: false, newTag: 300, newTrailer: true),  // room inserted, the file grows
        Case(oldTag: 2_048, servedTrailer: false, newTag: 300, newTrailer: true),  // fits in the old tag
        Case(oldTag: 600, servedTrailer: true, newTag: 5_000, newTrailer: false),  // the old ID3v1 tag goes
    ]

    @Test(.enabled(if: InPlaceSplice.insertsRanges(inFolder: FileManager.default.temporaryDirectory.path), "the temporary folder's file system inserts no blocks"),
        arguments: cases)
    func theServedFileItselfBecomesTheTaggedOne(_ example: Case) throws {
        let directory = try TemporaryDirectory(prefix: "splice")
        let served = directory.path("episode.part")
        let staged = directory.path("staged")
        try example.served.write(to: URL(filePath: served))
        let inode = FileDigesterTests.inode(of: served)
        let splice = InPlaceSplice(plan: example.plan, audioEnd: example.audioEnd)
        #expect(try splice.perform(on: served, into: staged))
        #expect(FileDigesterTests.inode(of: staged) == inode, "the same file, not a copy")
        #expect(!FileManager.default.fileExists(atPath: served), "no served file left to resume")
        #expect(try Data(contentsOf: URL(filePath: staged)) == example.tagged)
        #expect(splice.taggedBytes == Int64(example.tagged.count))
    }

    /// tmpfs cannot insert: the splice is refused with the served file as it was under its own
    /// name, and `make` builds a copy with the very bytes a splice gives; a tag that fits where
    /// the old one was needs no insertion and goes in place even there.
    @Test(.enabled(if: FileIO.isInMemory("/dev/shm"), "no tmpfs at /dev/shm"), arguments: cases)
    func whereNoBlocksCanBeInsertedTheServedFileStaysAsItWas(_ example: Case) throws {
        let directory = "/dev/shm/podcast-splice-\(UUID().uuidString)"
        try FileIO.makeDirectory(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let served = directory + "/episode.part"
        let staged = directory + "/staged"
        try example.served.write(to: URL(filePath: served))
        let splice = InPlaceSplice(plan: example.plan, audioEnd: example.audioEnd)
        if example.plan.room == 0 {
            #expect(try splice.perform(on: served, into: staged))
            #expect(!FileManager.default.fileExists(atPath: served))
        } else {
            #expect(try !splice.perform(on: served, into: staged))
            #expect(try FileIO.names(in: directory) == ["episode.part"])
            #expect(try Data(contentsOf: URL(filePath: served)) == example.served)
            #expect(try ID3Splice.make(staged, from: served, as: example.plan, audioEnd: example.audioEnd) == splice.taggedBytes)
            #expect(try Data(contentsOf: URL(filePath: served)) == example.served, "a copy leaves the served file as it was")
        }
        #expect(try Data(contentsOf: URL(filePath: staged)) == example.tagged)
    }
}
