import ArgumentParser
import CTerminal
import Glibc
import PodcastKit
import Synchronization

/// `podcast status`: the progress buffer, read from the store while downloads (a background
/// worker's or a foreground one's) write it.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show queued, running, paused, failed and recently finished downloads, and the background worker.",
        discussion: """
            Bytes, size, speed and time left come from the progress the downloading process records \
            about once a second. A download whose process is gone (killed, or the machine rebooted) \
            shows as interrupted: podcast resume continues it. Finished background batches are listed \
            with their summary file.

            Examples:
              podcast status
              podcast status --watch
              podcast status --json
            """
    )

    @Flag(help: "Redraw until no download is queued or running (on a terminal in place, otherwise a line per change).")
    var watch = false

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if watch && output.json { throw ValidationError("--watch redraws text; leave out --json (or poll podcast status --json)") }
    }

    /// How often `--watch` reads the store again.
    private static let watchInterval: UInt32 = 500_000

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        var status = try DownloadStatus.read(store: store, paths: context.paths)
        guard watch else {
            let rendering = StatusRendering(status: status, paths: context.paths)
            if output.json {
                context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
            } else {
                for line in rendering.lines(width: context.console.outputWidth) { context.console.print(line) }
            }
            return
        }
        let stopped = Mutex(false)
        Interruption.forward(to: { stopped.withLock { $0 = true } })
        let screen = StatusScreen(console: context.console)
        defer { screen.close() }
        while true {
            let rendering = StatusRendering(status: status, paths: context.paths)
            screen.show(rendering)
            guard status.isActive, !stopped.withLock({ $0 }) else {
                screen.finish(rendering)
                break
            }
            usleep(Self.watchInterval)
            status = try DownloadStatus.read(store: store, paths: context.paths)
        }
        if stopped.withLock({ $0 }) { throw ExitCode(ExitStatus.interrupted) }
    }
}

/// Where `status --watch` draws: on a terminal, the whole status redrawn in place (cursor hidden
/// meanwhile); otherwise each download's line printed again only when its state or its tenth of
/// progress changed, so a log of it stays short.
private final class StatusScreen {
    private let console: Console
    private let live: Bool
    private var drawnLines = 0
    private var printed: [String: String] = [:]

    init(console: Console) {
        self.console = console
        live = console.stdoutIsTerminal
        if live { Console.write("\u{1B}[?25l", to: STDOUT_FILENO) }
    }

    func show(_ rendering: StatusRendering) {
        if live {
            let width = max(20, Int(podcast_terminal_columns(STDOUT_FILENO)) - 1)
            let lines = rendering.lines(width: width)
            var frame = drawnLines > 0 ? "\u{1B}[\(drawnLines)F" : ""
            for line in lines { frame += "\u{1B}[2K" + line + "\n" }
            frame += "\u{1B}[0J"
            drawnLines = lines.count
            Console.write(frame, to: STDOUT_FILENO)
            return
        }
        for entry in rendering.status.downloads {
            let key = entry.record.feed + "\n" + entry.record.identity
            let total = entry.record.resume.total ?? entry.record.enclosureLength
            let tenth = total.map { $0 > 0 ? "\(min(100, entry.record.bytes * 100 / $0) / 10 * 10)%" : "" } ?? ""
            let line = [entry.state.rawValue, tenth, entry.record.podcastTitle + ": " + entry.record.title]
                .filter { !$0.isEmpty }.joined(separator: " ")
            guard printed[key] != line else { continue }
            printed[key] = line
            console.print(line)
        }
    }

    /// Ends the watch: off a terminal, what to do about interrupted downloads and the batches.
    func finish(_ rendering: StatusRendering) {
        guard !live else { return }
        for line in rendering.footer { console.print(line) }
    }

    func close() {
        if live { Console.write("\u{1B}[?25h", to: STDOUT_FILENO) }
    }
}
