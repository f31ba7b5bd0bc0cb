import Foundation
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

/// The integrity re-fetch decision: a completed file is checked against the feed's
/// `podcast:integrity` digest (`Integrity.Check.matches(file:sha256:)`: by the SHA-256 taken as it
/// arrived when that is the algorithm, else by reading the file again); a mismatch fetches the file
/// once more from byte 0, even after a resumed attempt, and a second mismatch fails the episode for
/// good (`EpisodeDownload.digestMismatched`); a stopped batch pauses it instead of fetching again.
@Suite(.timeLimit(.minutes(5))) struct IntegrityRefetchTests {
    private static let content = Data("episode audio\n".utf8)
    private static let sha256 = "tgVzsqdik/gHQW927pBVZ3CRxKTK/2PjvjWAvYBq6pQ="
    private static let sha384 = "JmvThVAlsdrPsACRUdDItrJgnBpW0T+Cfuip0smofhq7+QWqifwvTIGBdqC/kwZT"
    private static let url = "http://127.0.0.1:8080/media/one.mp3"
    private let item = DownloadItem(
        number: 1, entry: ListingItem(number: 1, identity: "ep-1", title: "One", enclosureURL: url, enclosureLength: 4_000_000),
        feed: "http://127.0.0.1:8080/feed.xml", podcastTitle: "Show")

    /// An episode, continuing `resume` of an earlier run when given.
    private func episode(resume: ResumePoint? = nil) -> EpisodeDownload {
        .fixture(item, url: Self.url, resume: resume)
    }

    private func digest(_ data: Data) -> [UInt8] {
        var sha = SHA2(.sha256)
        data.withUnsafeBytes { sha.update($0) }
        return sha.finish()
    }

    // MARK: The check

    @Test func aSHA256CheckIsDecidedByTheDigestTakenAsTheFileArrivedWithoutReadingIt() throws {
        let check = try #require(Integrity.Check(type: "sri", value: "sha256-\(Self.sha256)"))
        // No file at the path: reading it would throw.
        #expect(try check.matches(file: "/nonexistent/one.part", sha256: digest(Self.content)))
        #expect(try !check.matches(file: "/nonexistent/one.part", sha256: digest(Data("changed".utf8))))
    }

    @Test func anotherAlgorithmReadsTheFileAgain() throws {
        let directory = try TemporaryDirectory(prefix: "integrity-refetch")
        let path = directory.path("one.part")
        try Self.content.write(to: URL(filePath: path))
        let check = try #require(Integrity.Check(type: "sri", value: "sha384-\(Self.sha384)"))
        // The SHA-256 handed in says nothing to a SHA-384 check: even a wrong one is not used.
        #expect(try check.matches(file: path, sha256: [UInt8](repeating: 0, count: 32)))
        try Data("episode audio, changed on the way\n".utf8).write(to: URL(filePath: path))
        #expect(try !check.matches(file: path, sha256: digest(Self.content)))
        #expect(throws: SystemError.self) { try check.matches(file: directory.path("gone.part"), sha256: digest(Self.content)) }
    }

    // MARK: What a mismatch does

    @Test func theFirstMismatchDiscardsTheFileAndFetchesItAgainFromByteZero() {
        var download = episode()
        _ = download.begin()
        #expect(download.digestMismatched("sha384", batchStop: nil) == [
            .report(.warning(item, "the file does not match the feed's sha384 digest: fetching it again")),
            .discardPartial,
            .transfer(resume: nil, notBefore: nil),
        ])
        #expect(download.refetchedForIntegrity)
    }

    @Test func aMismatchAfterAResumedAttemptStillStartsOver() {
        let resume = ResumePoint(offset: 1_000, etag: "\"e1\"", lastModified: nil, total: 4_000_000)
        var download = episode(resume: resume)
        #expect(download.begin() == [.transfer(resume: resume, notBefore: nil)])
        #expect(download.digestMismatched("sha256", batchStop: nil).last == .transfer(resume: nil, notBefore: nil))
    }

    @Test func theSecondMismatchFailsForGoodBlamingThePublisher() {
        var download = episode()
        _ = download.begin()
        _ = download.digestMismatched("sha256", batchStop: nil)
        let reason = "the file does not match the sha256 digest the feed publishes (podcast:integrity), "
            + "twice; the publisher's file or digest is wrong"
        #expect(download.digestMismatched("sha256", batchStop: nil) == [.end(.failed(because: reason, bytes: 0, final: true))])
        let closing = download.closingRecord(.failed(because: reason, bytes: 0, final: true), durable: true)
        #expect(closing.finalError && closing.bytes == 0 && closing.resume.durableBytes == 0)
    }

    @Test func aMismatchInAStoppedBatchDiscardsTheFileAndPausesInsteadOfFetching() {
        var download = episode()
        _ = download.begin()
        #expect(download.digestMismatched("sha256", batchStop: .interrupted) == [
            .report(.warning(item, "the file does not match the feed's sha256 digest: fetching it again")),
            .discardPartial,
            .end(.paused(because: "interrupted", bytes: 0)),
        ])
    }
}
