import FoundationEssentials
import Glibc
import PodcastKit

/// Group completion: once every episode of a background batch has settled (whichever process
/// ended it: the worker, a foreground `resume`, a `cancel`), its JSON summary is written to
/// `<home>/batches/<id>.json` and its `--on-complete` command is started, once, detached (its own
/// session, not waited for, output appended to the worker's log) with `PODCAST_SUMMARY` set.
enum BatchCompletion {
    /// Settles what has ended; returns the batches this call finished.
    @discardableResult
    static func settle(store: StateStore, context: CommandContext) -> [BackgroundBatch] {
        let finished: [BackgroundBatch]
        do {
            finished = try store.settleBatches(summaries: context.paths.batchSummaries)
        } catch {
            context.console.warning("could not settle background batches: \(error)")
            return []
        }
        for batch in finished {
            guard let path = batch.summaryPath else { continue }
            do {
                try FileIO.makeDirectory(context.paths.batchSummaries)
                let writer = try AtomicFileWriter(destination: path)
                Array((BatchRendering(batch: batch).json.serialized(pretty: true) + "\n").utf8).withUnsafeBytes { writer.write($0) }
                try writer.commit()
            } catch {
                context.console.warning("could not write the summary of batch \(batch.id) to \(path): \(error)")
            }
            guard let command = batch.onComplete else { continue }
            var environment = context.environment
            environment["PODCAST_SUMMARY"] = path
            environment["PODCAST_BATCH"] = String(batch.id)
            do {
                _ = try DetachedProcess.spawn("/bin/sh", arguments: ["-c", command], environment: environment, log: context.paths.workerLog)
            } catch {
                context.console.warning("could not run the --on-complete command of batch \(batch.id): \(error)")
            }
        }
        return finished
    }
}
