/// Work that shares a download batch's engine and hands it episodes as it finds them: `update`'s
/// round of feeds, whose new episodes start downloading while other feeds are still fetched,
/// on the same connections. Its transfers' ids are `FeedRound.owns`' (past the batch's own);
/// the batch passes their events to `handle` and asks for episodes at every turn of its loop.
/// Everything is called on the batch's thread.
protocol BatchFeeder: AnyObject {
    /// Starts the feeder's own transfers on `engine`.
    func start(on engine: TransferEngine)
    /// One of the engine's events about the feeder's transfers.
    func handle(_ event: TransferEvent)
    /// The episodes found since the last call, to download.
    func takeEpisodes() -> [DownloadItem]
    /// True once the feeder has nothing more to give.
    var isFinished: Bool { get }
    /// Stops the feeder (the batch was interrupted, or the disk is full): what has not ended is dropped.
    func stop()
}
