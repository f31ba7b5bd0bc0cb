import Foundation
import Glibc
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

/// In-place recognition after a kill: a run records which file it is about to move under an
/// episode's name (`Placement`: device, inode, size, SHA-256) and is killed before it records the
/// download. The next run takes a file found under one of the episode's names as podcast's only
/// when it is that very file, unchanged, and no other record names it (`DownloadBatch.placedFile`);
/// a copy with the same bytes, an edited file, a longer one or a link to it are not. Real files in
/// a temporary folder, a real store.
@Suite(.timeLimit(.minutes(5))) struct PlacementTests {
    private static let key = EpisodeKey(feed: "http://h/feed.xml", identity: "g1")
    private static let audio = Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    /// A folder with the episode's file at `name`, and the placement a run recorded for it.
    private func placed(as name: String = "Episode.mp3") throws -> (TemporaryDirectory, String, Placement) {
        let directory = try TemporaryDirectory(prefix: "placement")
        let path = directory.path(name)
        try Self.audio.write(to: URL(filePath: path))
        let stamp = try #require(FileIO.stamp(ofName: path))
        let placement = Placement(
            key: Self.key, device: stamp.device, inode: stamp.inode, bytes: Int64(Self.audio.count),
            sha256: SHA2.hex(try SHA2.digest(ofFile: path, .sha256)))
        return (directory, path, placement)
    }

    /// The episode's names in `directory`, as the batch tries them.
    private func names(in directory: TemporaryDirectory) -> [String] {
        (1...4).map { directory.path("Episode" + ($0 == 1 ? "" : " (\($0))") + ".mp3") }
    }

    @Test func theFilePlacedIsFoundUnderTheEpisodesName() throws {
        let (directory, path, placement) = try placed()
        let found = try DownloadBatch.placedFile(placement, among: names(in: directory)) { _ in false }
        #expect(found?.path == path)
        #expect(found?.stamp == FileIO.stamp(ofName: path))
    }

    @Test func theFilePlacedIsFoundUnderALaterNameAndAnotherFileBeforeItIsPassedOver() throws {
        let (directory, path, placement) = try placed(as: "Episode (3).mp3")
        try Data("the user's".utf8).write(to: URL(filePath: directory.path("Episode.mp3")))
        let found = try DownloadBatch.placedFile(placement, among: names(in: directory)) { _ in false }
        #expect(found?.path == path)
    }

    @Test func aCopyWithTheSameBytesIsNotTheFilePlaced() throws {
        let (directory, path, placement) = try placed()
        // Another file (another inode) with the very bytes, put where the placed one was.
        let copy = directory.path("copy")
        try Self.audio.write(to: URL(filePath: copy))
        #expect(unlink(path) == 0 && rename(copy, path) == 0)
        #expect(try DownloadBatch.placedFile(placement, among: names(in: directory)) { _ in false } == nil)
    }

    @Test func theFileEditedInPlaceSinceItWasPlacedIsNotTaken() throws {
        let (directory, path, placement) = try placed()
        // Same inode, same size, other bytes.
        let handle = try FileHandle(forUpdating: URL(filePath: path))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data("edited".utf8))
        try handle.close()
        #expect(FileIO.regularFileSize(path) == Int64(Self.audio.count))
        #expect(try DownloadBatch.placedFile(placement, among: names(in: directory)) { _ in false } == nil)
    }

    @Test func theFileGrownSinceItWasPlacedIsNotTaken() throws {
        let (directory, path, placement) = try placed()
        let handle = try FileHandle(forUpdating: URL(filePath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more".utf8))
        try handle.close()
        #expect(try DownloadBatch.placedFile(placement, among: names(in: directory)) { _ in false } == nil)
    }

    @Test func aFileAnotherRecordNamesIsNotTaken() throws {
        let (directory, path, placement) = try placed()
        var asked: [String] = []
        let found = try DownloadBatch.placedFile(placement, among: names(in: directory)) { name in
            asked.append(name)
            return true
        }
        #expect(found == nil)
        #expect(asked == [path], "asked only of the file that is otherwise the one placed")
    }

    @Test func aLinkToTheFilePlacedIsNotTheFile() throws {
        let (directory, path, placement) = try placed(as: "elsewhere.mp3")
        #expect(symlink(path, directory.path("Episode.mp3")) == 0)
        #expect(try DownloadBatch.placedFile(placement, among: names(in: directory)) { _ in false } == nil)
    }

    @Test func noFileUnderAnyNameFindsNothing() throws {
        let (directory, _, placement) = try placed(as: "elsewhere.mp3")
        #expect(try DownloadBatch.placedFile(placement, among: names(in: directory)) { _ in false } == nil)
    }

    @Test func theStoreKeepsAPlacementUntilItIsForgotten() throws {
        let (directory, _, placement) = try placed()
        let store = try StateStore(path: directory.path("state.sqlite"))
        #expect(try store.placements.recorded(for: Self.key) == nil)
        try store.placements.record([placement])
        #expect(try store.placements.recorded(for: Self.key) == placement)
        #expect(try store.placements.recorded(for: EpisodeKey(feed: Self.key.feed, identity: "g2")) == nil)
        try store.placements.forget([Self.key])
        #expect(try store.placements.recorded(for: Self.key) == nil)
    }
}
