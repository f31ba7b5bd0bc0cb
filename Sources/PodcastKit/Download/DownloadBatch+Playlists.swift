extension DownloadBatch {
    /// Writes the playlist of every podcast whose episodes asked for one (`--playlist`).
    func writePlaylists(report: (DownloadUpdate) -> Void) {
        for (feed, playlist) in playlists.sorted(by: { $0.key < $1.key }) {
            let destination = playlist.folder + "/" + Playlist.fileName(podcastTitle: playlist.podcastTitle, portable: playlist.portable)
            do {
                try FileIO.makeDirectory(playlist.folder, mode: 0o755)
                if let problem = try Playlist.write(feed: feed, to: destination, store: store) { report(.notice("warning: " + problem)) }
            } catch {
                report(.notice("warning: could not write the playlist \(destination): \(error)"))
            }
        }
    }
}
