import Foundation
import Glibc
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

/// The red team's reproductions against `FileOwnership` and its callers, below the binary: each
/// test is one way podcast still deletes a file it did not write, or one changed since, or one
/// that is not the reason's own. Each fails on the code it was written against.
@Suite(.timeLimit(.minutes(5))) struct OwnershipRedTeamUnitTests {
    private static let feed = "http://h/feed.xml"
    private static let key = EpisodeKey(feed: feed, identity: "g1")

    /// Records `path` (its bytes as they are now) as episode `identity`'s finished file.
    private static func record(
        _ path: String, identity: String = "g1", subscription: Int? = nil, digest: Bool = true, in store: StateStore
    ) throws {
        var record = DownloadRecord(
            feed: feed, identity: identity, podcastTitle: "Show", title: identity, url: "http://h/\(identity).mp3", mediaType: nil,
            published: nil)
        record.state = .downloaded
        record.path = path
        record.bytes = FileIO.regularFileSize(path) ?? 0
        record.sha256 = digest ? SHA2.hex(try SHA2.digest(ofFile: path, .sha256)) : nil
        record.subscription = subscription
        try store.downloads.save(record)
    }

    /// True when some descriptor of this process is open on the file `inode` (the hasher has
    /// begun reading it), whatever name it has by then.
    private static func isOpen(inode: (dev_t, ino_t)) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return false }
        return names.contains { name in
            var info = stat()
            return stat("/proc/self/fd/" + name, &info) == 0 && info.st_dev == inode.0 && info.st_ino == inode.1
        }
    }

    // MARK: R2. A file replaced between the check and the unlink

    /// `FileOwnership.remove` hashes the file by its path, then unlinks the path: a file the user
    /// (a tagger, a sync tool) renames into place while podcast reads the old one is the one
    /// deleted. The check and the unlink must be about the same inode.
    @Test func aFileRenamedIntoPlaceWhileItIsCheckedIsNotDeleted() throws {
        let directory = try TemporaryDirectory(prefix: "redteam-swap")
        let store = try StateStore(path: directory.path("state.sqlite"))
        let path = directory.path("episode.mp3")
        // Large enough that reading it for its digest takes a while.
        let size = 128 * 1024 * 1024
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(filePath: path))
        try handle.truncate(atOffset: UInt64(size))
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: Data("podcast's episode".utf8))
        try handle.close()
        try Self.record(path, in: store)
        let mine = Data("the user's retagged episode, saved by their tagger".utf8)
        let staged = directory.path(".episode.mp3.tagger-tmp")
        try mine.write(to: URL(filePath: staged))

        // The user's tagger saves its file the usual way (write aside, rename over) as soon as
        // podcast has opened the old one.
        var original = stat()
        #expect(lstat(path, &original) == 0)
        let inode = (original.st_dev, original.st_ino)
        let swapper = Thread {
            let deadline = Date().addingTimeInterval(30)
            while !Self.isOpen(inode: inode), Date() < deadline {}
            rename(staged, path)
        }
        swapper.start()
        let removal = try FileOwnership(store: store).remove(path, for: .delete)
        while swapper.isExecuting || !swapper.isFinished { usleep(1_000) }

        #expect(FileManager.default.contents(atPath: path) == mine, "the user's new file was deleted: \(removal)")
    }

    // MARK: R3. A re-fetch's stale record of its old copy

    /// After a re-fetched episode's new copy goes in under another name, `removeReplaced` deletes
    /// the old path by the record read before the transaction, without asking whether the store
    /// now names that path for another episode. Another episode of the same bytes (a feed that
    /// serves one enclosure twice) placed there in the same batch is deleted: its record then names
    /// a file that is gone.
    @Test func theOldCopysPathTakenByAnotherEpisodeIsNotRemovedByTheRefetch() throws {
        let directory = try TemporaryDirectory(prefix: "redteam-stale")
        let store = try StateStore(path: directory.path("state.sqlite"))
        let path = directory.path("X.mp3")
        let bytes = Data(repeating: 7, count: 4_096)
        try bytes.write(to: URL(filePath: path))
        // Episode g2 now holds X.mp3, recorded as podcast placed it.
        try Self.record(path, identity: "g2", in: store)
        // g1's old copy was X.mp3 with the same bytes, as the finishing read it before g1 moved to Y.mp3.
        let stale = RecordedFile(path: path, role: .media(Self.key), bytes: nil, sha256: SHA2.hex(try SHA2.digest(ofFile: path, .sha256)), subscription: nil)

        let problems = LibraryDeletion(store: store).removeReplaced(stale, of: Self.key)

        #expect(FileManager.default.contents(atPath: path) == bytes, "g2's file went with g1's re-fetch: \(problems)")
    }

    // MARK: R5. Size alone vouching for a file

    /// A file finished before digests were kept (a migrated store) has only its size on record;
    /// `verdict` then takes an equal size for "unchanged". An edit that keeps the size (a tagger
    /// writing into the ID3 padding, a fixed typo in a transcript) is deleted by `podcast delete`.
    @Test func aSameSizeEditOfAFileWithoutADigestIsNotDeleted() throws {
        let directory = try TemporaryDirectory(prefix: "redteam-nodigest")
        let store = try StateStore(path: directory.path("state.sqlite"))
        let path = directory.path("episode.mp3")
        var bytes = Data(repeating: 0, count: 4_096)
        try bytes.write(to: URL(filePath: path))
        try Self.record(path, digest: false, in: store)
        bytes.replaceSubrange(10..<30, with: Data("TIT2 my own title...".utf8))
        try bytes.write(to: URL(filePath: path))

        let removal = try FileOwnership(store: store).remove(path, for: .delete)

        #expect(FileManager.default.contents(atPath: path) == bytes, "an edited file was taken for unchanged: \(removal)")
    }

    // MARK: R6. A symbolic link at podcast's own temporary name

    /// The temporary files written beside playlists, companions and info files have predictable
    /// names (`.podcast-<hash of the destination>.<pid>.tmp`) and are opened with O_CREAT|O_TRUNC,
    /// following a symbolic link (`FileIO.writeNewFile`): whoever can write in the podcast folder
    /// (a shared or synced folder) makes podcast overwrite any file the user can write. The same
    /// holds for the companion transfers' files (`Transfer`, O_CREAT then ftruncate).
    @Test func aSymbolicLinkAtATemporaryNameIsNotWrittenThrough() throws {
        let directory = try TemporaryDirectory(prefix: "redteam-temporary")
        let store = try StateStore(path: directory.path("state.sqlite"))
        let folder = directory.path("Show")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let victim = directory.path("thesis.tex")
        let mine = Data("\\documentclass{article} % three years of work".utf8)
        try mine.write(to: URL(filePath: victim))
        let destination = folder + "/" + Playlist.fileName(podcastTitle: "Show", portable: false)
        try FileManager.default.createSymbolicLink(
            atPath: ProcessTemporary.path(in: folder, for: destination), withDestinationPath: victim)

        let problem = try? Playlist.write(feed: Self.feed, into: folder, podcastTitle: "Show", portable: false, subscription: nil, store: store)

        #expect(FileManager.default.contents(atPath: victim) == mine, "written through the link: \(String(describing: problem))")
    }
}
