import PodcastPlatform

extension DownloadBatch {
    /// Writes the playlist of every podcast whose episodes asked for one (`--playlist`).
    func writePlaylists(report: (DownloadUpdate) -> Void) {
        for (feed, playlist) in playlists.sorted(by: { $0.key < $1.key }) {
            do {
                try FileIO.makeDirectory(playlist.folder, mode: 0o755)
                if let problem = try Playlist.write(
                    feed: feed, into: playlist.folder, podcastTitle: playlist.podcastTitle, portable: playlist.portable,
                    subscription: playlist.subscription, store: store)
                {
                    report(.notice("warning: " + problem))
                }
            } catch {
                report(.notice("warning: could not write the playlist of \(playlist.podcastTitle) in \(playlist.folder): \(error)"))
            }
        }
    }
}
