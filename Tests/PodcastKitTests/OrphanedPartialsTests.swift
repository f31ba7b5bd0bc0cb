import Foundation
import Glibc
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

/// `OrphanedPartials`: partial files no record names are removed; named or fresh ones never.
@Suite(.timeLimit(.minutes(5))) struct OrphanedPartialsTests {
    /// Writes `bytes` bytes to `path`, last modified `age` seconds ago.
    private func write(_ path: String, bytes: Int, age: Int) throws {
        try Data(repeating: 7, count: bytes).write(to: URL(filePath: path))
        var times = [timespec(tv_sec: time(nil) - age, tv_nsec: 0), timespec(tv_sec: time(nil) - age, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test func onlyOldFilesNoRecordNamesAreRemoved() throws {
        let home = try TemporaryDirectory(prefix: "orphans")
        let partials = home.path("Episodes/.partial")
        try FileIO.makeDirectory(partials, mode: 0o755)
        let store = try StateStore(path: home.path("state.sqlite"))
        let item = DownloadItem(
            number: 1, entry: ListingItem(number: 1, identity: "ep-1", title: "One", enclosureURL: "http://h/one.mp3"),
            feed: "http://h/feed.xml", podcastTitle: "Show")
        var record = DownloadRecord(queuing: item, url: "http://h/one.mp3")
        record.resume.partialPath = partials + "/named.part"
        record.state = .paused
        try store.downloads.save(record)

        try write(partials + "/named.part", bytes: 10, age: 3_600)
        try write(partials + "/0123456789abcdef.part", bytes: 1_000, age: 3_600)
        try write(partials + "/fresh.part", bytes: 10, age: 0)
        try write(partials + "/notes.txt", bytes: 10, age: 3_600)
        // Named like a partial file, but not as podcast names them: someone else's.
        try write(partials + "/lecture notes.part", bytes: 10, age: 3_600)
        // A tagged copy a killed process left (of any age), and one this process is writing.
        let ours = ProcessTemporary.path(in: partials, for: "named.part\ntagged", fileExtension: "opus")
        let killed = ours.replacingOccurrences(of: ".\(getpid()).tmp", with: ".4194305.tmp")
        try write(ours, bytes: 10, age: 0)
        try write(killed, bytes: 500, age: 0)

        let removed = try OrphanedPartials.sweep(partials, store: store)
        #expect(removed.files == 2 && removed.bytes == 1_500)
        let left = try FileManager.default.contentsOfDirectory(atPath: partials).sorted()
        #expect(left == [String(ours.dropFirst(partials.count + 1)), "fresh.part", "lecture notes.part", "named.part", "notes.txt"].sorted())
    }

    @Test func aMissingFolderHasNothingToSweep() throws {
        let home = try TemporaryDirectory(prefix: "orphans")
        let store = try StateStore(path: home.path("state.sqlite"))
        #expect(try OrphanedPartials.sweep(home.path("nowhere"), store: store) == (0, 0))
    }
}
