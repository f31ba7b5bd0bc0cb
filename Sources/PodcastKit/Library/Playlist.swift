import FoundationEssentials
import Glibc
import PodcastPlatform
import PodcastText

/// A podcast's M3U8 playlist (`--playlist`): its downloaded episodes, newest first, with paths
/// relative to the playlist's folder, so the folder can be copied to a player, a stick or a share
/// as it is. Rewritten whole after each run (a new file renamed over the old one), so a player
/// never reads half of it.
enum Playlist {
    /// One line of the playlist.
    struct Entry: Equatable {
        var path: String
        var title: String
        var published: Date?
    }

    /// The playlist of `entries` (newest first, undated last, then by path) for a file in `folder`.
    static func text(_ entries: [Entry], in folder: String) -> String {
        let newestFirst = entries.sorted { left, right in
            let (a, b) = (left.published ?? .distantPast, right.published ?? .distantPast)
            return a != b ? a > b : left.path < right.path
        }
        var text = "#EXTM3U\n"
        for entry in newestFirst {
            text += "#EXTINF:-1,\(entry.title.singleLine())\n\(relativePath(of: entry.path, from: folder))\n"
        }
        return text
    }

    /// `path` relative to `folder` (`../` where it lies outside it); both absolute.
    static func relativePath(of path: String, from folder: String) -> String {
        let target = path.split(separator: "/")
        let base = folder.split(separator: "/")
        var common = 0
        while common < min(target.count - 1, base.count), target[common] == base[common] { common += 1 }
        let up = Array(repeating: "..", count: base.count - common)
        return (up + target[common...].map(String.init)).joined(separator: "/")
    }

    /// The playlist's file name for a podcast: its title, as a safe name, with `.m3u8`; `(2)`,
    /// `(3)`, … from the second `attempt` on, for another podcast of the same title in the folder.
    static func fileName(podcastTitle: String, portable: Bool, attempt: Int = 1) -> String {
        let suffix = attempt == 1 ? "" : " (\(attempt))"
        let name = EpisodeFileName.component(podcastTitle, fallback: "Podcast", reserving: (suffix + ".m3u8").utf8.count)
        return (portable ? EpisodeFileName.portable(name) : name) + suffix + ".m3u8"
    }

    /// Writes the playlist of `feed`'s downloaded episodes into `folder`, under the name its earlier
    /// playlist there has, else the first of its title's names that nothing holds (two podcasts of
    /// one title each keep their own); returns why it was not written, or nil.
    static func write(
        feed: String, into folder: String, podcastTitle: String, portable: Bool, subscription: Int?, store: StateStore
    ) throws -> String? {
        let recorded = try store.libraryFiles.podcastFiles(of: feed).first { $0.kind == .playlist && FileIO.folder(of: $0.path) == folder }
        var destination: String
        if let recorded {
            destination = recorded.path
        } else {
            var attempt = 1
            repeat {
                destination = folder + "/" + fileName(podcastTitle: podcastTitle, portable: portable, attempt: attempt)
                attempt += 1
            } while try access(destination, F_OK) == 0 || store.libraryFiles.recordedFile(path: destination) != nil
        }
        return try write(feed: feed, to: destination, subscription: subscription ?? recorded?.subscription, store: store)
    }

    /// Writes the playlist of `feed`'s downloaded episodes to `destination` over the one podcast
    /// wrote there for it (never over another file: `FileOwnership`) and records it as podcast's;
    /// returns why it was not written, or nil.
    private static func write(feed: String, to destination: String, subscription: Int?, store: StateStore) throws -> String? {
        let entries = try store.downloads.records(feed: feed).values.compactMap { record in
            record.state == .downloaded ? record.path.map { Entry(path: $0, title: record.title, published: record.published) } : nil
        }
        let folder = FileIO.folder(of: destination)
        let contents = Array(text(entries, in: folder).utf8)
        // A temporary file of this process's own (`ProcessTemporary`): removed when not placed.
        let temporary = ProcessTemporary.path(in: folder, for: destination)
        do {
            try FileIO.writeNewFile(temporary, contents: contents)
            if let refused = try FileOwnership(store: store).place(temporary, at: destination, for: .podcastFile(feed: feed, .playlist)) {
                unlink(temporary)
                return refused + ", so the playlist was not written"
            }
        } catch {
            // Ownership: this call's own temporary file (`ProcessTemporary`).
            unlink(temporary)
            throw error
        }
        var digest = SHA2(.sha256)
        contents.withUnsafeBytes { digest.update($0) }
        try store.libraryFiles.save(LibraryFile(
            path: destination, feed: feed, identity: nil, kind: .playlist, bytes: Int64(contents.count), sha256: SHA2.hex(digest.finish()),
            subscription: subscription, fileStamp: FileIO.stamp(ofName: destination)))
        return nil
    }

    /// Rewrites every playlist podcast wrote for `feed` (after episodes were deleted); problems,
    /// one line each.
    static func refresh(feed: String, store: StateStore) -> [String] {
        do {
            return try store.libraryFiles.podcastFiles(of: feed).filter { $0.kind == .playlist }.compactMap { file in
                try write(feed: feed, to: file.path, subscription: file.subscription, store: store)
            }
        } catch {
            return ["could not rewrite the playlist of \(feed): \(error)"]
        }
    }
}
