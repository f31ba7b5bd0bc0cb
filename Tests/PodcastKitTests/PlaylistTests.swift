import Foundation
@testable import PodcastKit
import Testing

/// The M3U8 text: newest first, paths relative to the playlist's folder.
@Suite(.timeLimit(.minutes(5))) struct PlaylistTests {
    @Test func entriesAreNewestFirstWithPathsRelativeToTheFolder() {
        let entries = [
            Playlist.Entry(path: "/e/Show/2026/a.mp3", title: "Old", published: Date(timeIntervalSince1970: 1_000)),
            Playlist.Entry(path: "/e/Show/b.mp3", title: "New\nline", published: Date(timeIntervalSince1970: 2_000)),
            Playlist.Entry(path: "/e/Other/c.mp3", title: "Undated", published: nil),
        ]
        #expect(Playlist.text(entries, in: "/e/Show") == """
            #EXTM3U
            #EXTINF:-1,New line
            b.mp3
            #EXTINF:-1,Old
            2026/a.mp3
            #EXTINF:-1,Undated
            ../Other/c.mp3

            """)
    }

    @Test func thePlaylistIsNamedAfterThePodcast() {
        #expect(Playlist.fileName(podcastTitle: "Tones: & More?", portable: true) == "Tones - & More.m3u8")
        #expect(Playlist.fileName(podcastTitle: "../x", portable: false) == "x.m3u8")
    }

    @Test func olderThanLeavesUndatedEpisodesAlone() {
        let now = Date(timeIntervalSince1970: 100 * 86_400)
        let files = [
            KeepRule.File(identity: "old", path: "/a", published: Date(timeIntervalSince1970: 10 * 86_400)),
            KeepRule.File(identity: "new", path: "/b", published: Date(timeIntervalSince1970: 95 * 86_400)),
            KeepRule.File(identity: "undated", path: "/c", published: nil),
        ]
        #expect(files.filter { KeepRule.isOlder($0.published, thanDays: 30, now: now) }.map(\.identity) == ["old"])
    }
}
