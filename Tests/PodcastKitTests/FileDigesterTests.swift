import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Synchronization
import Testing

/// The digests of finished files, taken beside the downloads.
@Suite struct FileDigesterTests {
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

    /// MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz: 417 bytes each) with varied payloads,
    /// after an ID3v2 tag of `tagBytes` bytes when not 0, and an ID3v1 tag at the end.
    static func mp3(frames: Int, tagBytes: Int, seed: UInt8) -> Data {
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
        return data + Data("TAG".utf8) + Data(repeating: UInt8(ascii: "x"), count: 125)
    }

    static let tags = EpisodeTags(title: "Ünïcode — Title", album: "Show", artist: "Host", year: 2026, track: 7, comment: "Notes")

    /// An MP3 to be tagged is hashed as it arrives, as it will be once tagged: the digest
    /// delivered is the tagged file's, whose audio is the served audio between TagLib's tags;
    /// a start over with other bytes begins the plan again.
    @Test func anMP3IsHashedAsItWillBeOnceTaggedAndStartsOverCleanly() throws {
        let directory = try TemporaryDirectory(prefix: "digester")
        let path = directory.path("episode.part")
        let old = Self.mp3(frames: 300, tagBytes: 0, seed: 1)
        let served = Self.mp3(frames: 600, tagBytes: 2_048, seed: 2)
        let delivered = Mutex<DigestedFile?>(nil)
        let digester = FileDigester { _, file in delivered.withLock { $0 = file } }
        try old.prefix(100_000).write(to: URL(filePath: path))
        digester.filled(1, path: path, bytes: 100_000, tagging: Self.tags)
        // It started over with another file, which arrives in three pieces.
        try served.prefix(70_000).write(to: URL(filePath: path))
        digester.rewinding(1, to: 0)
        digester.filled(1, path: path, bytes: 70_000, tagging: Self.tags)
        try served.prefix(200_000).write(to: URL(filePath: path))
        digester.filled(1, path: path, bytes: 200_000, tagging: Self.tags)
        try served.write(to: URL(filePath: path))
        digester.complete(1, path: path, bytes: Int64(served.count), tagging: Self.tags)
        digester.shutdown()
        let file = try #require(delivered.withLock { $0 })
        let tagged = try Data(contentsOf: URL(filePath: path))
        var expected = SHA2(.sha256)
        tagged.withUnsafeBytes { expected.update($0) }
        #expect(file.sha256 == expected.finish())
        #expect(file.tagging == .tagged(sha256: file.sha256, bytes: Int64(tagged.count)))
        let newTag = Int(ID3Splice.tagLength(Array(tagged.prefix(10))))
        #expect(newTag > 0)
        #expect(tagged.subdata(in: newTag..<tagged.count - 128) == served.subdata(in: 2_048..<served.count - 128), "the audio as served")
        #expect(tagged.suffix(128).starts(with: Data("TAG".utf8)))
        #expect(tagged.suffix(128) != served.suffix(128), "TagLib's ID3v1 tag in place of the old one")
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
    }
}
