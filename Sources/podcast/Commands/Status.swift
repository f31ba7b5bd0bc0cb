import ArgumentParser
import Glibc
import PodcastKit
import Synchronization

/// `podcast status`: the progress buffer, read from the store while downloads (a background
/// worker's or a foreground one's) write it.
struct Status: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show queued, running, paused, failed and recently finished downloads, and the background worker.",
        discussion: """
            Running and queued downloads come first, then failed, paused and interrupted ones, then \
            the \(StatusRendering.latestFinished) latest finished in the last 24 hours and how many more \
            there are (--all lists every finished download with its date; so does podcast history). The \
            # column is the episode's number in the last listing, as podcast cancel and podcast pause \
            take it.

            Bytes, size, speed and time left come from the progress the downloading process records \
            about once a second. A download whose process is gone (killed, or the machine rebooted) \
            shows as interrupted: podcast resume continues it. Finished background batches are listed \
            with their summary file. On a terminal, --watch fits the screen and says how many rows \
            it left out.

            Examples:
              podcast status
              podcast status --watch
              podcast status --all
              podcast status --json
            """
    )

    @Flag(help: "Redraw until no download is queued or running (on a terminal in place, otherwise a line per change).")
    var watch = false

    @Flag(help: "List every finished download, with when it finished, not only the latest few.")
    var all = false

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if watch && output.json { throw ValidationError("--watch redraws text; leave out --json (or poll podcast status --json)") }
    }

    /// How often `--watch` reads the store again.
    private static let watchInterval: UInt32 = 500_000

    func run() throws {
        let context = try CommandContext.current(tolerant: true)
        let store = try context.openStore()
        let listing = try store.currentListing.load()
        let scope: DownloadStatus.FinishedScope = all ? .all : output.json ? .recent : .latest(StatusRendering.latestFinished)
        let read = { () throws -> StatusRendering in
            let status = try DownloadStatus.read(store: store, paths: context.paths, finished: scope)
            return StatusRendering(status: status, paths: context.paths, listing: listing, datedFinished: all)
        }
        var rendering = try read()
        guard watch else {
            if output.json {
                context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
            } else {
                for line in rendering.lines(width: context.console.outputWidth) { context.console.print(line) }
            }
            return
        }
        guard rendering.status.isActive else {
            // A watch with nothing to follow would end at once, having said nothing useful.
            let rest = rendering.status.downloads.isEmpty ? "" : " (podcast status shows the others)"
            context.console.message("nothing to watch: no download is queued or running" + rest)
            return
        }
        let stopped = Mutex(false)
        Interruption.forward(to: { stopped.withLock { $0 = true } })
        let screen = StatusScreen(console: context.console)
        defer { screen.close() }
        while true {
            screen.show(rendering)
            guard rendering.status.isActive, !stopped.withLock({ $0 }) else {
                screen.finish(rendering)
                break
            }
            usleep(Self.watchInterval)
            rendering = try read()
        }
        if stopped.withLock({ $0 }) { throw ExitCode(ExitStatus.interrupted) }
    }
}

/// Where `status --watch` draws: on a terminal, the whole status redrawn in place (`LiveFrame`:
/// fitted to the width and height, redrawn whole after a resize); otherwise each download's line
/// printed again only when its state or its tenth of progress changed, so a log of it stays short.
private final class StatusScreen {
    private let console: Console
    private let frame: LiveFrame?
    private var printed: [String: String] = [:]

    init(console: Console) {
        self.console = console
        frame = console.isLive(STDOUT_FILENO) ? LiveFrame(descriptor: STDOUT_FILENO, console: console) : nil
    }

    func show(_ rendering: StatusRendering) {
        if let frame {
            frame.draw(overflow: { "+\($0) more lines" }) { width, height in rendering.lines(width: width, height: height) }
            return
        }
        for entry in rendering.ordered {
            let key = entry.record.feed + "\n" + entry.record.identity
            let total = entry.record.resume.total ?? entry.record.enclosureLength
            let tenth = total.map { $0 > 0 ? "\(min(100, entry.record.bytes * 100 / $0) / 10 * 10)%" : "" } ?? ""
            let line = [rendering.number(of: entry.record), entry.state.rawValue, tenth, entry.record.podcastTitle + ": " + entry.record.title]
                .filter { !$0.isEmpty }.joined(separator: " ")
            guard printed[key] != line else { continue }
            printed[key] = line
            console.print(line)
        }
    }

    /// Ends the watch: off a terminal, what to do about interrupted downloads and the batches.
    func finish(_ rendering: StatusRendering) {
        guard frame == nil else { return }
        for line in rendering.footer { console.print(line) }
    }

    func close() {
        frame?.close()
    }
}
