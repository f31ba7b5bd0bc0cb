import FoundationEssentials
import PodcastPlatform
import PodcastText

/// Group completion: once every episode of a background batch has settled (whichever process
/// ended it: the worker, a foreground `resume`, a `cancel`), its summary is written to
/// `<home>/batches/<id>.json` and its `--on-complete` command is started, once, detached (its own
/// session, not waited for, output appended to the worker's log) with `PODCAST_SUMMARY` set. The
/// file with its secrets (`BatchSecrets`) is removed.
public struct BatchCompletion {
    let store: StateStore
    let paths: PodcastPaths
    /// The environment `--on-complete` commands start with.
    let environment: [String: String]
    /// The summary document of a finished batch (the CLI renders it: the core never formats output).
    let summary: (BackgroundBatch) -> String
    /// Where a summary that cannot be written, or a command that cannot start, is reported.
    let warn: (String) -> Void

    /// Creates a completion over `store`, with its home's `paths`.
    public init(
        store: StateStore, paths: PodcastPaths, environment: [String: String], summary: @escaping (BackgroundBatch) -> String,
        warn: @escaping (String) -> Void
    ) {
        self.store = store
        self.paths = paths
        self.environment = environment
        self.summary = summary
        self.warn = warn
    }

    /// Settles what has ended; returns the batches this call finished.
    @discardableResult
    public func settle() -> [BackgroundBatch] {
        let finished: [BackgroundBatch]
        do {
            finished = try store.batches.settle(summaries: paths.batchSummaries)
        } catch {
            warn("could not settle background batches: \(error)")
            return []
        }
        for batch in finished {
            if let secrets = batch.settings.secretsFile {
                do {
                    try BatchSecrets(paths: paths).remove(secrets)
                } catch {
                    warn("could not remove the secrets file of batch \(batch.id): \(error); delete the file yourself")
                }
            }
            guard let path = batch.summaryPath else { continue }
            do {
                try FileIO.makeDirectory(paths.batchSummaries)
                let writer = try AtomicFileWriter(destination: path)
                // A file for the user's command to read: the secrets of the URLs in it are masked.
                Array(SecretRedactor.redacted(summary(batch)).utf8).withUnsafeBytes { writer.write($0) }
                try writer.commit()
            } catch {
                warn("could not write the summary of batch \(batch.id) to \(path): \(error)")
            }
            guard let command = batch.onComplete else { continue }
            var environment = environment
            environment["PODCAST_SUMMARY"] = path
            environment["PODCAST_BATCH"] = String(batch.id)
            do {
                _ = try DetachedProcess.spawn("/bin/sh", arguments: ["-c", command], environment: environment, log: paths.workerLog)
            } catch {
                warn("could not run the --on-complete command of batch \(batch.id): \(error)")
            }
        }
        return finished
    }
}
