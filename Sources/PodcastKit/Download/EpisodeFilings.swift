import PodcastPlatform
/// How a batch's episodes are filed: each item's `EpisodeFiling` (its own library settings or the
/// batch's, with what its feed says when a setting needs that), and the podcasts whose playlist
/// is written when the batch ends (`--playlist`).
struct EpisodeFilings {
    /// The batch's library settings, for items without their own.
    let library: LibrarySettings
    /// What feeds say about the episodes beyond their listings, read when a setting needs it.
    private let details: FeedDetails
    /// Where placed episodes are handed on to their `--on-episode` command.
    let hooks = EpisodeHooks()
    /// The podcasts whose playlist is written when the batch ends, by feed.
    private var playlists: [String: PlaylistRequest] = [:]

    /// A podcast's playlist to write: its folder and title, how names are written, its subscription.
    private struct PlaylistRequest {
        var folder: String
        var podcastTitle: String
        var portable: Bool
        var subscription: Int?
    }

    init(library: LibrarySettings, store: StateStore) {
        self.library = library
        details = FeedDetails(store: store)
    }

    /// How `item`'s files are made in the Episodes directory `directory`; `warn` hears what
    /// could not be read of its feed.
    mutating func filing(for item: DownloadItem, in directory: String, warn: (String) -> Void) -> EpisodeFiling {
        let settings = item.library ?? library
        let found = settings.needsFeedDetails ? details.lookup(feed: item.feed, identity: item.entry.identity, problem: warn) : nil
        let values = NameValues(
            podcast: item.podcastTitle, title: item.entry.title, published: item.entry.published, episode: found?.episode?.episodeNumber,
            season: found?.episode?.season, guid: item.entry.guid,
            fileExtension: EpisodeFileName.fileExtension(mediaType: item.entry.enclosureType, url: item.entry.enclosureURL ?? ""))
        let filing = EpisodeFiling(directory: directory, settings: settings, values: values, show: found?.show, episode: found?.episode)
        if settings.playlist, playlists[item.feed] == nil {
            playlists[item.feed] = PlaylistRequest(
                folder: filing.podcastFolder ?? filing.directory, podcastTitle: item.podcastTitle, portable: settings.portableNames,
                subscription: item.subscription)
        }
        return filing
    }

    /// Hands a downloaded episode on to its command (its own settings' or the batch's), if any:
    /// the command runs on the hooks' thread, never this one.
    func handOn(_ result: DownloadResult) {
        guard result.state == .downloaded, let path = result.path, let command = (result.item.library ?? library).onEpisode else { return }
        hooks.handOn(result, at: path, to: command)
    }

    /// Reports the commands that failed since the last call, each as a warning about its episode;
    /// `waiting` first waits for every command still to run (the batch has ended).
    func reportHooks(waiting: Bool, report: (DownloadUpdate) -> Void) {
        if waiting { hooks.finish() }
        for (item, message) in hooks.takeFailures() { report(.warning(item, message)) }
    }

    /// Writes the playlist of every podcast whose episodes asked for one; `notice` hears what failed.
    func writePlaylists(store: StateStore, notice: (String) -> Void) {
        for (feed, playlist) in playlists.sorted(by: { $0.key < $1.key }) {
            do {
                try FileIO.makeDirectory(playlist.folder, mode: 0o755)
                if let problem = try Playlist.write(
                    feed: feed, into: playlist.folder, podcastTitle: playlist.podcastTitle, portable: playlist.portable,
                    subscription: playlist.subscription, store: store)
                {
                    notice("warning: " + problem)
                }
            } catch {
                notice("warning: could not write the playlist of \(playlist.podcastTitle) in \(playlist.folder): \(error)")
            }
        }
    }
}
