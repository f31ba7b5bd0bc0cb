import PodcastKit

extension EpisodesDirectoryError {
    /// This error naming what set the Episodes directory, as `podcast config` shows it, when the
    /// directory is the one `transfer` chose (a subscription's own directory is not).
    func naming(_ transfer: TransferOptions, context: CommandContext) -> EpisodesDirectoryError {
        guard let resolved = try? context.settings(transfer.given), directory == resolved.settings.episodesDirectory else { return self }
        var named = self
        named.origin = resolved.origin(of: "episodes-dir").description
        return named
    }
}
