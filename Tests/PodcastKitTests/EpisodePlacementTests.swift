import Foundation
import Glibc
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

/// `EpisodePlacement`: which name a finished episode takes. A name is free only when nothing is on
/// disk there, no file podcast recorded has it, and no other episode's media file shares its stem;
/// the episode's own earlier copy is replaced only while unchanged; otherwise `name (2)`, `name (3)`,
/// … in turn. A file podcast did not write is never replaced, and two episodes wanting one name
/// get it in the batch's order. Real files in a temporary folder, a real store.
@Suite(.timeLimit(.minutes(5))) struct EpisodePlacementTests {
    private static let feed = "http://h/feed.xml"
    private static let served = Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    private let directory: TemporaryDirectory
    private let store: StateStore

    init() throws {
        directory = try TemporaryDirectory(prefix: "episode-placement")
        store = try StateStore(path: directory.path("state.sqlite"))
    }

    private func key(_ identity: String) -> EpisodeKey { EpisodeKey(feed: Self.feed, identity: identity) }

    /// Episode `identity` titled `title`, about to be placed in the temporary folder.
    private func download(_ identity: String, title: String = "Same", id: Int = 1) -> EpisodeDownload {
        let url = "http://h/\(identity).mp3"
        let item = DownloadItem(
            number: id, entry: ListingItem(number: id, identity: identity, title: title, enclosureURL: url, enclosureLength: nil),
            feed: Self.feed, podcastTitle: "Show")
        var record = DownloadRecord(queuing: item, url: url)
        let partial = directory.path("\(identity).part")
        record.resume.partialPath = partial
        let filing = EpisodeFiling(
            directory: directory.path, settings: LibrarySettings(), values: NameValues(podcast: "Show", title: title, fileExtension: "mp3"),
            show: nil, episode: nil)
        return EpisodeDownload(id: id, item: item, record: record, partialPath: partial, filing: filing, previous: nil, resumePlan: nil)
    }

    /// `download`'s name at `attempt` (1: the plain name).
    private func name(_ download: EpisodeDownload, _ attempt: Int) -> String {
        download.filing.path(of: download.filing.name(suffix: attempt == 1 ? "" : " (\(attempt))"))
    }

    /// Records `path` as episode `identity`'s finished file, with its digest when it is on disk.
    private func recordDownloaded(_ identity: String, at path: String) throws {
        var record = DownloadRecord(
            feed: Self.feed, identity: identity, podcastTitle: "Show", title: "E", url: "http://h/\(identity).mp3", mediaType: nil,
            published: nil)
        record.state = .downloaded
        record.path = path
        if let size = FileIO.regularFileSize(path) {
            record.bytes = size
            record.sha256 = SHA2.hex(try SHA2.digest(ofFile: path, .sha256))
            record.fileStamp = FileIO.stamp(ofName: path)
        }
        try store.downloads.save(record)
    }

    /// Writes `contents` at `path`, making its folder.
    private func write(_ contents: Data, at path: String) throws {
        try FileManager.default.createDirectory(atPath: String(path[..<path.lastIndex(of: "/")!]), withIntermediateDirectories: true)
        try contents.write(to: URL(filePath: path))
    }

    /// Writes the served bytes as `episode`'s partial file and moves it into place: where it went.
    private func placeServed(_ episode: EpisodeDownload) throws -> String {
        try write(Self.served, at: episode.partialPath)
        return try EpisodePlacement(episodesDirectory: directory.path).moveIntoPlace(episode, from: episode.partialPath, store: store)
    }

    // MARK: Availability

    @Test func aNameNothingHasIsOpen() throws {
        #expect(try EpisodePlacement.availability(of: directory.path("Show/Same.mp3"), for: key("g1"), store: store) == .open)
    }

    @Test func aFileOnDiskPodcastDidNotWriteTakesTheName() throws {
        let path = directory.path("Show/Same.mp3")
        try write(Data("the user's".utf8), at: path)
        #expect(try EpisodePlacement.availability(of: path, for: key("g1"), store: store) == .taken)
    }

    @Test func aDanglingLinkTakesTheNameToo() throws {
        let path = directory.path("Same.mp3")
        #expect(symlink(directory.path("nowhere"), path) == 0)
        #expect(try EpisodePlacement.availability(of: path, for: key("g1"), store: store) == .taken)
    }

    @Test func theEpisodesOwnEarlierCopyIsItsOwn() throws {
        let path = directory.path("Show/Same.mp3")
        try write(Self.served, at: path)
        try recordDownloaded("g1", at: path)
        #expect(try EpisodePlacement.availability(of: path, for: key("g1"), store: store) == .own)
        #expect(try EpisodePlacement.availability(of: path, for: key("g2"), store: store) == .taken, "and another's")
    }

    @Test func aNameAnotherEpisodesRecordHasIsTakenEvenWithNoFileThere() throws {
        let path = directory.path("Show/Same.mp3")
        try recordDownloaded("g2", at: path)
        #expect(try EpisodePlacement.availability(of: path, for: key("g1"), store: store) == .taken)
    }

    @Test func anotherEpisodesMediaFileWithTheSameStemTakesTheName() throws {
        // Companions named after `Same` would be both episodes'.
        try recordDownloaded("g2", at: directory.path("Show/Same.m4a"))
        #expect(try EpisodePlacement.availability(of: directory.path("Show/Same.mp3"), for: key("g1"), store: store) == .taken)
        #expect(try EpisodePlacement.availability(of: directory.path("Show/Same (2).mp3"), for: key("g1"), store: store) == .open)
    }

    @Test func theStemIsTheNameWithoutItsLastExtension() {
        #expect(EpisodePlacement.stem(of: "/E/Show/Same.mp3") == "/E/Show/Same")
        #expect(EpisodePlacement.stem(of: "/E/Show/Same.tar.gz") == "/E/Show/Same.tar")
        #expect(EpisodePlacement.stem(of: "/E/Show.d/Same") == "/E/Show.d/Same", "a dot in a folder is not an extension")
        #expect(EpisodePlacement.stem(of: "Same") == "Same")
    }

    // MARK: Moving into place

    @Test func aFreeNameIsTakenAsIs() throws {
        let episode = download("g1")
        try write(Self.served, at: episode.partialPath)
        var placement = EpisodePlacement(episodesDirectory: directory.path)
        try placement.makeFolder(episode.folder)
        let path = try placement.moveIntoPlace(episode, from: episode.partialPath, store: store)
        #expect(path == name(episode, 1))
        #expect(path == directory.path("Show/Same.mp3"))
        #expect(FileManager.default.contents(atPath: path) == Self.served)
        #expect(FileIO.regularFileSize(episode.partialPath) == nil)
    }

    @Test func aFileTheUserPutAtTheNameStaysAndTheEpisodeTakesTheNextName() throws {
        let episode = download("g1")
        try write(Data("the user's".utf8), at: name(episode, 1))
        let path = try placeServed(episode)
        #expect(path == name(episode, 2))
        #expect(FileManager.default.contents(atPath: name(episode, 1)) == Data("the user's".utf8))
        #expect(FileManager.default.contents(atPath: path) == Self.served)
    }

    @Test func theEpisodesUnchangedEarlierCopyIsReplacedInPlace() throws {
        let episode = download("g1")
        try write(Data("old copy".utf8), at: name(episode, 1))
        try recordDownloaded("g1", at: name(episode, 1))
        let path = try placeServed(episode)
        #expect(path == name(episode, 1))
        #expect(FileManager.default.contents(atPath: path) == Self.served)
    }

    @Test func theEpisodesEarlierCopyChangedSincePodcastWroteItIsLeftToTheUser() throws {
        let episode = download("g1")
        try write(Data("old copy".utf8), at: name(episode, 1))
        try recordDownloaded("g1", at: name(episode, 1))
        try write(Data("edited by the user".utf8), at: name(episode, 1))
        let path = try placeServed(episode)
        #expect(path == name(episode, 2))
        #expect(FileManager.default.contents(atPath: name(episode, 1)) == Data("edited by the user".utf8))
        #expect(FileManager.default.contents(atPath: path) == Self.served)
    }

    @Test func twoEpisodesWantingOneNameGetItInTheBatchsOrderWhicheverFinishesFirst() throws {
        let first = download("g1", id: 1)
        let second = download("g2", id: 2)
        var placement = EpisodePlacement(episodesDirectory: directory.path)
        try placement.makeFolder(first.folder)
        try placement.hold(first, store: store)
        try placement.hold(second, store: store)
        try write(Data("second".utf8), at: second.partialPath)
        try write(Data("first".utf8), at: first.partialPath)
        // The second finishes first: the plain name is still the first's.
        #expect(try placement.moveIntoPlace(second, from: second.partialPath, store: store) == name(second, 2))
        placement.release(second.id)
        #expect(try placement.moveIntoPlace(first, from: first.partialPath, store: store) == name(first, 1))
        #expect(FileManager.default.contents(atPath: name(first, 1)) == Data("first".utf8))
        #expect(FileManager.default.contents(atPath: name(second, 2)) == Data("second".utf8))
    }
}
