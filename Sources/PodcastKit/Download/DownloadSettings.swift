/// How a batch downloads, resolved once by the command that asks (options over environment over
/// configuration file over defaults): where finished files go, the engine's limits and HTTP
/// identity, and when an episode is given up on. A background batch records it
/// (`QueuedSettings`), so the worker fetches exactly as the command would have.
public struct DownloadSettings: Sendable, Equatable {
    /// Where finished episodes go, absolute.
    public var episodesDirectory: String
    /// Concurrency, speed cap, size cap and HTTP settings.
    public var engine: TransferEngine.Settings
    /// When failed attempts are tried again, and when an episode fails.
    public var retry: RetryPolicy
    /// How finished files are named, and what goes with them.
    public var library: LibrarySettings

    /// Settings that put files in `episodesDirectory`, with `engine`, `retry` and `library` as given.
    public init(
        episodesDirectory: String, engine: TransferEngine.Settings = .init(), retry: RetryPolicy = RetryPolicy(),
        library: LibrarySettings = LibrarySettings()
    ) {
        self.episodesDirectory = episodesDirectory
        self.engine = engine
        self.retry = retry
        self.library = library
    }
}
