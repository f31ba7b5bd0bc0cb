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
}
