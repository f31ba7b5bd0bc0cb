import PodcastKit

extension EpisodesDirectoryError {
    /// This error naming what set the Episodes directory, as `podcast config` shows it, when the
    /// directory is the one `transfer` chose (a subscription's own directory is not).
    func naming(_ transfer: TransferOptions, context: CommandContext) -> EpisodesDirectoryError {
        guard directory == transfer.episodesDirectory(context: context) else { return self }
        var named = self
        named.origin = EffectiveSettings(transfer: transfer, context: context).list.first { $0.key == "episodes-dir" }?.origin
        return named
    }
}
