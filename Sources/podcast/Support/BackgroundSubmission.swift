import ArgumentParser
import PodcastKit

/// `download --background` and `resume --background`: queue the episodes as one batch, make sure
/// a worker will fetch them, say how to watch it, and return at once (no terminal display).
enum BackgroundSubmission {
    static func submit(
        _ items: [DownloadItem], transfer: TransferOptions, background: BackgroundOptions, output: OutputOptions,
        store: StateStore, context: CommandContext
    ) throws {
        // The headers' values go to a private file before the batch exists, so the worker never
        // finds a batch without them; the store records only the file's name.
        let settings = transfer.settings(context: context)
        let headers = BatchHeaders(paths: context.paths)
        var headersFile: String?
        if !settings.engine.http.headers.isEmpty {
            do {
                headersFile = try headers.save(settings.engine.http.headers.fields)
            } catch {
                context.console.error("cannot keep the --header values for the background worker: \(error); check \(context.paths.home)")
                throw ExitCode(ExitStatus.operationFailed)
            }
        }
        // Queued first, then the worker looked for: a worker that is just leaving checks the queue
        // again after letting go of its lock, so this work cannot be stranded.
        let queued: QueuedBatch
        do {
            queued = try store.enqueueBatch(items, settings: QueuedSettings(settings, headersFile: headersFile), onComplete: background.onComplete)
        } catch {
            if let headersFile {
                do { try headers.remove(headersFile) } catch {
                    context.console.warning("could not remove \(headersFile) from \(context.paths.home)/headers: \(error)")
                }
            }
            throw error
        }
        BatchCompletion.settle(store: store, context: context)
        var worker: Int32?
        if queued.queued > 0 {
            do {
                worker = try WorkerLauncher.ensureWorker(paths: context.paths, environment: context.environment)
            } catch {
                context.console.error("cannot start the background worker: \(error); the episodes stay queued: run podcast resume")
                throw ExitCode(ExitStatus.operationFailed)
            }
        }
        let log = context.paths.workerLog
        if output.json {
            context.console.print(JSONValue.object([
                ("batch", .int(queued.id)),
                ("queued", .int(queued.queued)),
                ("settled", .int(queued.settled)),
                ("worker", .object([("pid", .int(worker.map(Int.init)))])),
                ("log", .string(log)),
            ]).serialized(pretty: context.console.stdoutIsTerminal))
        }
        let settled = queued.settled > 0 ? " (\(queued.settled) already done or without media)" : ""
        guard queued.queued > 0 else {
            context.console.message("nothing to download in the background: " + (queued.settled == 1 ? "the episode is" : "all \(queued.settled) episodes are") + " already done or without media")
            return
        }
        let owner = worker.map { " (pid \($0))" } ?? ""
        context.console.message(
            "queued \(Plural.count(queued.queued, "episode"))\(settled) for the background worker\(owner) as batch \(queued.id); "
                + "watch with: podcast status --watch; log: \(log)")
    }
}
