import Foundation
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

/// `ResumePlan`: what an earlier run's record and the partial file it left are worth after a
/// restart. In the same boot every byte in the file is trusted, after a reboot only the durable
/// ones; a record that vouches for more than the file holds, a file longer than the server's, or
/// no validator to check it with all mean starting over, with the reason said. Real files in a
/// temporary folder; no server.
@Suite(.timeLimit(.minutes(5))) struct ResumePlanTests {
    private static let otherBoot = "00000000-0000-0000-0000-000000000000"

    /// A folder holding a partial file of `size` bytes (none for nil).
    private func partial(size: Int?) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory(prefix: "resume-plan")
        let path = directory.path("episode.part")
        if let size { try Data(repeating: 7, count: size).write(to: URL(filePath: path)) }
        return (directory, path)
    }

    /// An earlier run's record of `path`: `bytes` received, `durable` of them synced, in `boot`.
    private func record(
        _ path: String, bytes: Int64, durable: Int64, boot: String? = ProcessOwner.currentBoot, etag: String? = "\"v1\"",
        lastModified: String? = nil, total: Int64? = 10_000
    ) -> DownloadRecord {
        var record = DownloadRecord(
            feed: "http://h/feed.xml", identity: "g1", podcastTitle: "Show", title: "E", url: "http://h/1.mp3", mediaType: nil, published: nil)
        record.state = .paused
        record.bytes = bytes
        record.resume.partialPath = path
        record.resume.durableBytes = durable
        record.resume.dataBoot = boot
        record.resume.etag = etag
        record.resume.lastModified = lastModified
        record.resume.total = total
        return record
    }

    @Test func inTheSameBootEveryByteInTheFileIsKept() throws {
        let (directory, path) = try partial(size: 3_000)
        defer { withExtendedLifetime(directory) {} }
        let (point, why) = ResumePlan.plan(record(path, bytes: 2_000, durable: 1_000), partialPath: path)
        #expect(point == ResumePoint(offset: 3_000, etag: "\"v1\"", lastModified: nil, total: 10_000))
        #expect(why == nil)
    }

    @Test func afterARebootOnlyTheDurableBytesAreKept() throws {
        let (directory, path) = try partial(size: 3_000)
        defer { withExtendedLifetime(directory) {} }
        let (point, why) = ResumePlan.plan(record(path, bytes: 2_000, durable: 1_000, boot: Self.otherBoot), partialPath: path)
        #expect(point == ResumePoint(offset: 1_000, etag: "\"v1\"", lastModified: nil, total: 10_000))
        #expect(why == nil)
    }

    @Test func aRecordWithoutABootIsTreatedAsAnotherBoot() throws {
        let (directory, path) = try partial(size: 3_000)
        defer { withExtendedLifetime(directory) {} }
        let (point, _) = ResumePlan.plan(record(path, bytes: 3_000, durable: 500, boot: nil), partialPath: path)
        #expect(point?.offset == 500)
    }

    @Test func aFileShorterThanTheRecordVouchesForStartsOverSayingWhy() throws {
        let (directory, path) = try partial(size: 1_500)
        defer { withExtendedLifetime(directory) {} }
        let sameBoot = ResumePlan.plan(record(path, bytes: 2_000, durable: 1_000), partialPath: path)
        #expect(sameBoot.0 == nil)
        #expect(sameBoot.why == "the record says 2000 bytes were saved but the partial file holds 1500")
        let rebooted = ResumePlan.plan(record(path, bytes: 2_000, durable: 1_800, boot: Self.otherBoot), partialPath: path)
        #expect(rebooted.0 == nil)
        #expect(rebooted.why == "the record says 1800 bytes were saved but the partial file holds 1500")
    }

    @Test func aPartialFileLongerThanTheServersFileStartsOverSayingWhy() throws {
        let (directory, path) = try partial(size: 12_000)
        defer { withExtendedLifetime(directory) {} }
        let (point, why) = ResumePlan.plan(record(path, bytes: 10_000, durable: 10_000, total: 10_000), partialPath: path)
        #expect(point == nil)
        #expect(why == "the partial file (12000 bytes) is longer than the server's file (10000 bytes)")
    }

    @Test func aFileAsLongAsTheServersIsStillContinued() throws {
        let (directory, path) = try partial(size: 10_000)
        defer { withExtendedLifetime(directory) {} }
        let (point, why) = ResumePlan.plan(record(path, bytes: 10_000, durable: 0, total: 10_000), partialPath: path)
        #expect(point?.offset == 10_000)
        #expect(why == nil)
    }

    @Test func withoutAValidatorThereIsNothingToCheckTheFileAgainst() throws {
        let (directory, path) = try partial(size: 3_000)
        defer { withExtendedLifetime(directory) {} }
        let none = ResumePlan.plan(record(path, bytes: 3_000, durable: 3_000, etag: nil), partialPath: path)
        #expect(none.0 == nil)
        #expect(none.why == "no ETag or Last-Modified was recorded to check the partial file against")
        // A weak ETag cannot promise the same bytes either.
        let weak = ResumePlan.plan(record(path, bytes: 3_000, durable: 3_000, etag: "W/\"v1\""), partialPath: path)
        #expect(weak.0 == nil)
        #expect(weak.why == "no ETag or Last-Modified was recorded to check the partial file against")
    }

    @Test func lastModifiedAloneIsEnoughToContinue() throws {
        let (directory, path) = try partial(size: 3_000)
        defer { withExtendedLifetime(directory) {} }
        let modified = "Tue, 01 Sep 2026 10:00:00 GMT"
        let (point, why) = ResumePlan.plan(
            record(path, bytes: 3_000, durable: 3_000, etag: "W/\"weak\"", lastModified: modified, total: nil), partialPath: path)
        #expect(point == ResumePoint(offset: 3_000, etag: "W/\"weak\"", lastModified: modified, total: nil))
        #expect(point?.validator == modified)
        #expect(why == nil)
    }

    @Test func nothingWorthKeepingStartsOverSilently() throws {
        let (directory, path) = try partial(size: 3_000)
        defer { withExtendedLifetime(directory) {} }
        // Another partial path than the record's: not this record's file.
        let elsewhere = ResumePlan.plan(record(directory.path("other.part"), bytes: 3_000, durable: 3_000), partialPath: path)
        #expect(elsewhere.0 == nil && elsewhere.why == nil)
        // After a reboot with nothing synced.
        let unsynced = ResumePlan.plan(record(path, bytes: 3_000, durable: 0, boot: Self.otherBoot), partialPath: path)
        #expect(unsynced.0 == nil && unsynced.why == nil)
        let (emptyDirectory, empty) = try partial(size: 0)
        defer { withExtendedLifetime(emptyDirectory) {} }
        let nothing = ResumePlan.plan(record(empty, bytes: 0, durable: 0), partialPath: empty)
        #expect(nothing.0 == nil && nothing.why == nil)
        let (missingDirectory, missing) = try partial(size: nil)
        defer { withExtendedLifetime(missingDirectory) {} }
        let gone = ResumePlan.plan(record(missing, bytes: 3_000, durable: 3_000), partialPath: missing)
        #expect(gone.0 == nil && gone.why == nil)
    }

    @Test func aDirectoryWhereThePartialFileWasIsNotContinued() throws {
        let (directory, path) = try partial(size: nil)
        defer { withExtendedLifetime(directory) {} }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let (point, why) = ResumePlan.plan(record(path, bytes: 3_000, durable: 3_000), partialPath: path)
        #expect(point == nil && why == nil)
    }

    /// The decision itself takes the file's size and the boot as facts: no file is read.
    @Test func theDecisionIsMadeFromTheFactsAlone() {
        let path = "/nowhere/episode.part"
        let kept = ResumePlan.plan(record(path, bytes: 2_000, durable: 1_000, boot: "b1"), partialPath: path, size: 3_000, boot: "b1")
        #expect(kept.0?.offset == 3_000 && kept.why == nil)
        let rebooted = ResumePlan.plan(record(path, bytes: 2_000, durable: 1_000, boot: "b1"), partialPath: path, size: 3_000, boot: "b2")
        #expect(rebooted.0?.offset == 1_000)
        let shrunk = ResumePlan.plan(record(path, bytes: 2_000, durable: 1_000, boot: "b1"), partialPath: path, size: 1_500, boot: "b1")
        #expect(shrunk.0 == nil && shrunk.why == "the record says 2000 bytes were saved but the partial file holds 1500")
        let missing = ResumePlan.plan(record(path, bytes: 2_000, durable: 1_000, boot: "b1"), partialPath: path, size: nil, boot: "b1")
        #expect(missing.0 == nil && missing.why == nil)
    }

    @Test func aPartialFileLeftElsewhereIsMovedToTheEpisodesPath() throws {
        let (directory, earlier) = try partial(size: 2_048)
        defer { withExtendedLifetime(directory) {} }
        let path = directory.path("moved.part")
        #expect(ResumePlan.adoptPartial(from: earlier, to: path))
        #expect(FileIO.regularFileSize(path) == 2_048)
        #expect(FileIO.regularFileSize(earlier) == nil)
        #expect(!ResumePlan.adoptPartial(from: directory.path("never.part"), to: path), "nothing to move")
        #expect(FileIO.regularFileSize(path) == 2_048, "and the file in place is left alone")
    }
}
