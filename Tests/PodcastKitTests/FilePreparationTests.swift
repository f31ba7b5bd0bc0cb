import Foundation
@testable import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Synchronization
import Testing

/// `FilePreparation` and `FilePreparer`: a completed file is checked against the feed's digest,
/// tagged when asked, and hashed, on real files, off the caller's thread.
@Suite(.timeLimit(.minutes(5))) struct FilePreparationTests {
    private static let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    private func sha256(_ data: Data) -> [UInt8] {
        var digest = SHA2(.sha256)
        data.withUnsafeBytes { digest.update($0) }
        return digest.finish()
    }

    private func file() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory(prefix: "preparation")
        let path = directory.path("one.part")
        try Self.body.write(to: URL(filePath: path))
        return (directory, path)
    }

    private func job(_ path: String, integrity: Integrity.Check? = nil, tags: EpisodeTags? = nil) -> FilePreparation {
        FilePreparation(id: 1, path: path, bytes: Int64(Self.body.count), integrity: integrity, tags: tags)
    }

    @Test func aFileIsReadyWithItsSHA256() throws {
        let (directory, path) = try file()
        defer { withExtendedLifetime(directory) {} }
        let expected = FinishedFile(bytes: Int64(Self.body.count), sha256: SHA2.hex(sha256(Self.body)), source: path)
        #expect(job(path).run() == .ready(expected, untagged: nil))
    }

    @Test func theFeedsDigestIsCheckedOnTheBytesAsServed() throws {
        let (directory, path) = try file()
        defer { withExtendedLifetime(directory) {} }
        let right = try #require(Integrity.Check(type: "sri", value: "sha256-" + Data(sha256(Self.body)).base64EncodedString()))
        guard case .ready(let ready, nil) = job(path, integrity: right).run() else { Issue.record("a matching file is not ready"); return }
        #expect(ready.sha256 == SHA2.hex(sha256(Self.body)))
        let wrong = try #require(Integrity.Check(type: "sri", value: "sha256-" + Data(sha256(Data("other".utf8))).base64EncodedString()))
        #expect(job(path, integrity: wrong).run() == .mismatched(check: "sha256"))
    }

    @Test func aFileTagLibIsNotAskedToTagIsReadyAsServedSayingWhy() throws {
        let (directory, path) = try file()
        defer { withExtendedLifetime(directory) {} }
        let tags = EpisodeTags(title: "One", album: "Show")
        guard case .ready(let ready, let untagged?) = job(path, tags: tags).run() else { Issue.record("no reason given"); return }
        #expect(ready.source == path && ready.bytes == Int64(Self.body.count))
        #expect(untagged.contains("not a format podcast tags"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["one.part"], "no copy is left")
    }

    @Test func aMissingFileFailsInOneLine() throws {
        let directory = try TemporaryDirectory(prefix: "preparation")
        guard case .failed(let why) = job(directory.path("gone.part")).run() else { Issue.record("a missing file was ready"); return }
        #expect(why.contains("gone.part") && !why.contains("\n"))
    }

    @Test func thePreparerDeliversEveryOutcomeBeforeItShutsDown() throws {
        let (directory, path) = try file()
        defer { withExtendedLifetime(directory) {} }
        let delivered = Mutex<[Int: FilePreparation.Outcome]>([:])
        let preparer = FilePreparer { id, outcome in delivered.withLock { $0[id] = outcome } }
        for id in 0..<5 { preparer.prepare(FilePreparation(id: id, path: path, bytes: Int64(Self.body.count), integrity: nil, tags: nil)) }
        preparer.shutdown()
        let outcomes = delivered.withLock { $0 }
        #expect(outcomes.count == 5)
        let expected = FilePreparation.Outcome.ready(
            FinishedFile(bytes: Int64(Self.body.count), sha256: SHA2.hex(sha256(Self.body)), source: path), untagged: nil)
        #expect(outcomes.values.allSatisfy { $0 == expected })
    }
}
