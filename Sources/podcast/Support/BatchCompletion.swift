import PodcastKit

extension BatchCompletion {
    /// The completion of this home's batches: summaries in the contract's JSON, problems as warnings.
    static func of(store: StateStore, context: CommandContext) -> BatchCompletion {
        BatchCompletion(
            store: store, paths: context.paths, environment: context.environment,
            summary: { BatchRendering(batch: $0).json.serialized(pretty: true) + "\n" },
            warn: { context.console.warning($0) })
    }

    /// Settles what has ended in `store` (see `BatchCompletion.settle`).
    @discardableResult
    static func settle(store: StateStore, context: CommandContext) -> [BackgroundBatch] {
        of(store: store, context: context).settle()
    }
}
