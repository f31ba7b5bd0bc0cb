import Foundation
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

/// `FileOwnership`: the one check before podcast deletes or writes over a file. Real files, a real
/// store: a file is podcast's only if the store records it, it is unchanged, and the reason at hand
/// is its own.
@Suite(.timeLimit(.minutes(5))) struct FileOwnershipTests {
    private static let feed = "http://h/feed.xml"
    private static let key = EpisodeKey(feed: feed, identity: "g1")
    private static let audio = Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    /// A store in a new folder, and a finished file `name` recorded as downloaded there by
    /// `subscription` (nil: by hand), with its size and digest.
    private func home(subscription: Int? = nil, name: String = "episode.mp3") throws -> (StateStore, TemporaryDirectory, String) {
        let directory = try TemporaryDirectory(prefix: "ownership")
        let store = try StateStore(path: directory.path("state.sqlite"))
        let path = directory.path(name)
        try Self.audio.write(to: URL(filePath: path))
        var record = DownloadRecord(
            feed: Self.feed, identity: Self.key.identity, podcastTitle: "Show", title: "E", url: "http://h/1.mp3", mediaType: nil,
            published: nil)
        record.state = .downloaded
        record.path = path
        record.bytes = Int64(Self.audio.count)
        record.sha256 = SHA2.hex(try SHA2.digest(ofFile: path, .sha256))
        record.subscription = subscription
        try store.downloads.save(record)
        return (store, directory, path)
    }

    @Test func aFileFoundWhereAnEpisodeWouldGoIsNotPodcasts() throws {
        let (store, directory, _) = try home()
        let foreign = directory.path("taxes.pdf")
        try Data("the user's".utf8).write(to: URL(filePath: foreign))
        let ownership = FileOwnership(store: store)
        #expect(try ownership.verdict(foreign, for: .delete) .message == ("left \(foreign) in place: podcast did not write it"))
        #expect(try ownership.remove(foreign, for: .delete) .message == ("left \(foreign) in place: podcast did not write it"))
        #expect(FileManager.default.contents(atPath: foreign) == Data("the user's".utf8))
        // Nor is it written over by a new file.
        let new = directory.path("new.part")
        try Data("new".utf8).write(to: URL(filePath: new))
        #expect(try ownership.place(new, at: foreign, for: .refetch(Self.key)) != nil)
        #expect(FileManager.default.contents(atPath: foreign) == Data("the user's".utf8))
    }

    @Test func aFileTheUserChangedAfterTheDownloadIsTheirs() throws {
        let (store, directory, path) = try home()
        defer { withExtendedLifetime(directory) {} }
        var same = Self.audio
        same[100] ^= 0xFF  // Same size, other bytes: only the digest tells.
        try same.write(to: URL(filePath: path))
        #expect(try FileOwnership(store: store).remove(path, for: .delete)
            .message == ("left \(path) in place: its contents changed since podcast wrote it"))
        try Data("shorter".utf8).write(to: URL(filePath: path))
        guard case .refused(let why) = try FileOwnership(store: store).verdict(path, for: .delete) else {
            Issue.record("a changed file was taken for podcast's")
            return
        }
        #expect(why.message.contains("it has 7 bytes, not the 4096 podcast wrote"))
        #expect(FileManager.default.contents(atPath: path) == Data("shorter".utf8))
    }

    @Test func aCopyWithTheSameBytesIsNotTheFilePodcastPlaced() throws {
        let (store, directory, path) = try home()
        defer { withExtendedLifetime(directory) {} }
        var record = try #require(try store.downloads.record(Self.key))
        record.fileStamp = FileIO.stamp(ofName: path)
        try store.downloads.save(record)
        // The user moves podcast's file away and puts a copy of it in its place.
        try FileManager.default.moveItem(atPath: path, toPath: directory.path("kept.mp3"))
        try FileManager.default.copyItem(atPath: directory.path("kept.mp3"), toPath: path)
        #expect(try FileOwnership(store: store).remove(path, for: .delete)
            .message == ("left \(path) in place: it is not the file podcast placed there (a copy, or a file moved there)"))
        #expect(FileManager.default.contents(atPath: path) == Self.audio)
    }

    @Test func anUntouchedFileIsKnownByItsStampAndAnEditedOneByItsDigest() throws {
        let (store, directory, path) = try home()
        defer { withExtendedLifetime(directory) {} }
        var record = try #require(try store.downloads.record(Self.key))
        record.fileStamp = FileIO.stamp(ofName: path)
        // A digest that no longer matches shows whether the file was read: with the stamp as it
        // was placed, it is not (the same file, its ctime unchanged: nothing wrote to it).
        record.sha256 = String(repeating: "0", count: 64)
        try store.downloads.save(record)
        #expect(try FileOwnership(store: store).verdict(path, for: .delete).message == nil)
        // A ctime other than the one recorded (an edit since, a chmod): then the digest decides.
        // (Made by recording an earlier one: an edit within the clock's tick would keep it.)
        let placed = try #require(record.fileStamp)
        record.fileStamp = FileIO.Stamp(device: placed.device, inode: placed.inode, changed: placed.changed - 1_000_000_000)
        try store.downloads.save(record)
        #expect(try FileOwnership(store: store).remove(path, for: .delete)
            .message == ("left \(path) in place: its contents changed since podcast wrote it"))
        #expect(FileManager.default.contents(atPath: path) == Self.audio)
    }

    @Test func aSymbolicLinkInPlaceOfAFileIsNeverFollowed() throws {
        let (store, directory, path) = try home()
        let target = directory.path("elsewhere.mp3")
        try FileManager.default.moveItem(atPath: path, toPath: target)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        #expect(try FileOwnership(store: store).remove(path, for: .delete)
            .message == ("left \(path) in place: it is a symbolic link, so podcast did not write it"))
        #expect(FileManager.default.contents(atPath: target) == Self.audio)
    }

    @Test func keepAndUnsubscribeTakeOnlyTheirOwnSubscriptionsFiles() throws {
        let (store, directory, path) = try home(subscription: 7)
        defer { withExtendedLifetime(directory) {} }
        let ownership = FileOwnership(store: store)
        #expect(try ownership.remove(path, for: .keep(subscription: 8))
            .message == ("left \(path) in place: podcast wrote it for another subscription's updates"))
        #expect(try ownership.remove(path, for: .unsubscribe(subscription: 8))
            .message == ("left \(path) in place: podcast wrote it for another subscription's updates"))
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try ownership.remove(path, for: .keep(subscription: 7)) == .removed(bytes: Int64(Self.audio.count)))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aHandDownloadIsNeverASubscriptionsToRemove() throws {
        let (store, directory, path) = try home(subscription: nil)
        defer { withExtendedLifetime(directory) {} }
        let ownership = FileOwnership(store: store)
        let refusal = "left \(path) in place: podcast wrote it for a download asked for by hand, not for this subscription's updates"
        #expect(try ownership.remove(path, for: .keep(subscription: 1)) .message == (refusal))
        #expect(try ownership.remove(path, for: .unsubscribe(subscription: 1)) .message == (refusal))
        // The user asking for it by name may delete it.
        #expect(try ownership.remove(path, for: .delete) == .removed(bytes: Int64(Self.audio.count)))
    }

    @Test func aCompanionIsRewrittenOnlyForItsOwnEpisodeAndKind() throws {
        let (store, directory, _) = try home()
        defer { withExtendedLifetime(directory) {} }
        let info = directory.path("episode.info.json")
        let contents = Data("{}".utf8)
        try contents.write(to: URL(filePath: info))
        try store.libraryFiles.save(LibraryFile(
            path: info, feed: Self.feed, identity: "g1", kind: .info, bytes: 2, sha256: SHA2.hex(try SHA2.digest(ofFile: info, .sha256))))
        let other = EpisodeKey(feed: Self.feed, identity: "g2")
        let ownership = FileOwnership(store: store)
        #expect(try ownership.verdict(info, for: .companion(other, .info))
            .message == ("left \(info) in place: it is not this episode's info file"))
        #expect(try ownership.verdict(info, for: .companion(Self.key, .chapters))
            .message == ("left \(info) in place: it is not this episode's chapters file"))
        #expect(try ownership.verdict(info, for: .podcastFile(feed: Self.feed, .playlist))
            .message == ("left \(info) in place: it is not this podcast's playlist"))
        let fresh = directory.path("fresh.tmp")
        try Data("[]".utf8).write(to: URL(filePath: fresh))
        #expect(try ownership.place(fresh, at: info, for: .companion(Self.key, .info)) == nil)
        #expect(FileManager.default.contents(atPath: info) == Data("[]".utf8))
    }

    @Test func theRuleItselfNamesWhyAReasonIsNotTheFilesOwn() {
        let media = RecordedFile(path: "/e/a.mp3", role: .media(Self.key), bytes: 1, sha256: nil, subscription: 3)
        #expect(FileOwnership.refusal(of: media, for: .delete) == nil)
        #expect(FileOwnership.refusal(of: media, for: .keep(subscription: 3)) == nil)
        #expect(FileOwnership.refusal(of: media, for: .refetch(Self.key)) == nil)
        #expect(FileOwnership.refusal(of: media, for: .refetch(EpisodeKey(feed: Self.feed, identity: "g2"))) != nil)
        #expect(FileOwnership.refusal(of: media, for: .companion(Self.key, .info)) != nil)
        let companion = RecordedFile(path: "/e/a.srt", role: .companion(Self.key, .transcript), bytes: 1, sha256: nil, subscription: nil)
        #expect(FileOwnership.refusal(of: companion, for: .refetch(Self.key)) == nil, "a re-fetch replaces its companions too")
        #expect(FileOwnership.refusal(of: companion, for: .keep(subscription: 3)) != nil)
    }

    @Test func aRecordWithoutADigestCannotVouchForAFile() throws {
        let (store, directory, path) = try home()
        defer { withExtendedLifetime(directory) {} }
        let unknown = RecordedFile(path: path, role: .media(Self.key), bytes: Int64(Self.audio.count), sha256: nil, subscription: nil)
        let removal = try FileOwnership(store: store).removeEarlierCopy(unknown, of: Self.key)
        #expect(removal.message == "left \(path) in place: another of podcast's files has that name now", "the store names it")
        try store.downloads.forgetDeleted(Self.key)
        #expect(try FileOwnership(store: store).removeEarlierCopy(unknown, of: Self.key)
            .message == ("left \(path) in place: podcast kept no digest of it (an older version wrote it), so it cannot tell whether it changed"))
        #expect(FileManager.default.contents(atPath: path) == Self.audio)
    }
}

private extension FileOwnership.Verdict {
    /// The refusal's line, nil when it is no refusal.
    var message: String? {
        if case .refused(let refusal) = self { refusal.message } else { nil }
    }
}

private extension FileOwnership.Removal {
    /// The refusal's line, nil when it is no refusal.
    var message: String? {
        if case .refused(let refusal) = self { refusal.message } else { nil }
    }
}
