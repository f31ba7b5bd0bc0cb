import ArgumentParser
import PodcastKit
import PodcastText

/// `download --background`, `resume --background` and `update --background`: queue the work, make
/// sure a worker will do it, say how to watch it, and return at once (no terminal display).
enum BackgroundSubmission {
    static func submit(
        _ items: [DownloadItem], transfer: TransferOptions, background: BackgroundOptions, output: OutputOptions,
        store: StateStore, context: CommandContext
    ) throws {
        let settings = try context.settings(transfer.given).settings
        let queued = try queue(settings, context: context) { settings throws in
            try store.batches.enqueue(items, settings: settings, onComplete: background.onComplete)
        }
        BatchCompletion.settle(store: store, context: context)
        let worker = queued.queued > 0 ? try startWorker(context: context, otherwise: "the episodes stay queued: run podcast resume") : nil
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

    /// Queues an update of `subscriptions` (nil: all) for the worker.
    static func submitUpdate(
        of subscriptions: [Subscription]?, refresh: Bool, deadlines: FeedDeadlines, transfer: TransferOptions, output: OutputOptions,
        store: StateStore, context: CommandContext
    ) throws {
        var settings = try context.settings(transfer.given).settings
        settings.feedTimeout = deadlines.feed
        let id = try queue(settings, context: context) { queued throws in
            try store.updateRequests.enqueue(subscriptions: subscriptions?.map(\.id), refresh: refresh, settings: queued)
        }
        let worker = try startWorker(context: context, otherwise: "run podcast update in the foreground")
        let log = context.paths.workerLog
        if output.json {
            context.console.print(JSONValue.object([
                ("update", .int(id)), ("worker", .object([("pid", .int(worker.map(Int.init)))])), ("log", .string(log)),
            ]).serialized(pretty: context.console.stdoutIsTerminal))
        }
        let count = subscriptions.map { Plural.count($0.count, "subscription") } ?? "every subscription"
        context.console.message(
            "queued an update of \(count) for the background worker\(worker.map { " (pid \($0))" } ?? ""); "
                + "watch with: podcast status --watch; log: \(log)")
    }

    /// The worker's pid (nil: one is starting), started if none runs; a worker that cannot start
    /// is an error that says `otherwise`, what to do instead.
    private static func startWorker(context: CommandContext, otherwise: String) throws -> Int32? {
        do {
            return try WorkerLauncher.ensureWorker(paths: context.paths, environment: context.environment)
        } catch {
            context.console.error("cannot start the background worker: \(error); \(otherwise)")
            throw ExitCode(ExitStatus.operationFailed)
        }
    }

    /// Queues work with `settings` through `enqueue`: its secrets (`BatchSecrets`) go to a private file
    /// first, so the worker never finds the work without them, and the store records only the
    /// file's name; the file goes again when the work cannot be queued.
    private static func queue<Queued>(
        _ settings: Settings, context: CommandContext, enqueue: (QueuedSettings) throws -> Queued
    ) throws -> Queued {
        let secrets = BatchSecrets(paths: context.paths)
        var secretsFile: String?
        if let contents = BatchSecrets.Contents(of: settings) {
            do {
                secretsFile = try secrets.save(contents)
            } catch {
                context.console.error(
                    "cannot keep the secrets (--header values, proxy, a feed's credentials) for the background worker: \(error); check \(context.paths.home)")
                throw ExitCode(ExitStatus.operationFailed)
            }
        }
        do {
            // Queued first, then the worker looked for: a worker that is just leaving checks the
            // queue again after letting go of its lock, so this work cannot be stranded.
            return try enqueue(QueuedSettings(settings, secretsFile: secretsFile))
        } catch {
            if let secretsFile {
                do { try secrets.remove(secretsFile) } catch {
                    context.console.warning("could not remove \(secretsFile) from \(context.paths.home)/secrets: \(error)")
                }
            }
            throw error
        }
    }
}
