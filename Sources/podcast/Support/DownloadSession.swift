import ArgumentParser
import PodcastKit

/// Runs a batch in the terminal for `download` and `resume`: the live progress display, Ctrl-C
/// handled as "pause and keep everything", the summary or JSON, and the contract's exit code.
enum DownloadSession {
    static func run(_ items: [DownloadItem], batch: DownloadBatch, output: OutputOptions, context: CommandContext) throws {
        let started = ContinuousClock.now
        Interruption.forward(to: batch.interrupter)
        let display = ProgressDisplay(console: context.console, items: items)
        let outcome: BatchOutcome
        do {
            defer { display.close() }
            outcome = try batch.run(items) { display.show($0) }
        }
        // Episodes of a background batch finished here (a resume after the worker died) complete it.
        BatchCompletion.settle(store: batch.store, context: context)

        let rendering = DownloadRendering(results: outcome.results, elapsed: ContinuousClock.now - started)
        if output.json {
            context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
        }
        context.console.message(rendering.summary)
        let again = context.credentialsAreForThisRunOnly ? "this command again" : "podcast resume"
        try end(outcome.stop, succeeded: outcome.results.allSatisfy(\.succeeded), again: again, console: context.console)
    }

    /// Exits as the contract says after a run of downloads that stopped with `stop` (nil: every
    /// episode ended on its own): 130 for Ctrl-C, 1 for a full disk or when not everything asked
    /// for `succeeded` (a failed, paused or cancelled episode is not downloaded). `again` is the
    /// command that continues the run.
    static func end(_ stop: BatchOutcome.Stop?, succeeded: Bool, again: String, console: Console) throws {
        switch stop {
        case .interrupted:
            console.message("interrupted: unfinished episodes are paused with their data kept; run \(again) to continue")
            throw ExitCode(ExitStatus.interrupted)
        case .storageFull(let reason):
            console.error("stopped every download: \(reason); free some space, then run \(again)")
            throw ExitCode(ExitStatus.operationFailed)
        case nil:
            if !succeeded { throw ExitCode(ExitStatus.operationFailed) }
        }
    }
}
