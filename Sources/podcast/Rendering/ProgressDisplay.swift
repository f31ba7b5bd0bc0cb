import CTerminal
import Glibc
import PodcastKit

/// Shows downloads as they go, on stderr: on a terminal, one bar per running episode redrawn in
/// place (each frame written at once, clipped to the width, cursor hidden meanwhile); otherwise
/// one plain line when an episode starts and one when it ends, written a few at a time.
final class ProgressDisplay {
    private let console: Console
    private let live: Bool
    /// Off a terminal, the lines not written yet. They go out with each progress update (at most
    /// 4 times a second while anything runs), with a warning or a retry, once 16 KiB gather, and
    /// at the end: 2,000 small episodes would otherwise cost 4,000 writes.
    private var unwritten = ""
    /// The running episodes (at most the concurrency) in the order they started, and where each stands.
    private var running: [Row] = []
    private var drawnLines = 0

    /// One running episode's line. A class, so finding and updating a row copies no strings.
    private final class Row {
        let item: DownloadItem
        var progress: TransferProgress?
        /// When it is tried again, and why it failed, while it waits.
        var retry: (at: ContinuousClock.Instant, reason: String)?

        init(item: DownloadItem) {
            self.item = item
        }

        /// Whether the row shows `other` (same feed, same episode).
        func shows(_ other: DownloadItem) -> Bool {
            item.key == other.key
        }
    }

    init(console: Console) {
        self.console = console
        live = console.stderrIsTerminal
        if live { Console.write("\u{1B}[?25l", to: STDERR_FILENO) }
    }

    /// Takes one update from the batch.
    func show(_ update: DownloadUpdate) {
        switch update {
        case .started(let item):
            if let row = row(of: item) {
                row.retry = nil
            } else {
                running.append(Row(item: item))
                if !live { print("downloading \(item.label)") }
            }
        case .progress(let snapshot):
            for (item, progress) in snapshot {
                row(of: item)?.progress = progress
            }
            writeUnwritten()
        case .finished(let result):
            running.removeAll { $0.shows(result.item) }
            print(line(for: result))
        case .warning(let item, let message):
            print("warning: \(item.label): \(message)")
            writeUnwritten()
        case .notice(let message):
            print("note: \(message)")
            writeUnwritten()
        case .retrying(let item, let until, let reason):
            row(of: item)?.retry = (until, reason)
            if !live { print("retrying \(item.label) in \(Self.seconds(until - .now)): \(reason)") }
            writeUnwritten()
        }
        if live { redraw() }
    }

    /// Prints `line` above the bars (a feed's news during an update), as it is.
    func say(_ line: String) {
        print(line)
        writeUnwritten()
        if live { redraw() }
    }

    private func row(of item: DownloadItem) -> Row? {
        running.first { $0.shows(item) }
    }

    /// Draws the last frame and gives the cursor back, or writes the last lines.
    func close() {
        guard live else { return writeUnwritten() }
        running.removeAll()
        redraw()
        Console.write("\u{1B}[?25h", to: STDERR_FILENO)
    }

    /// Prints a line that stays, above the bars (off a terminal, soon: see `unwritten`).
    private func print(_ text: String) {
        guard !live else {
            clear()
            return console.message(text)
        }
        unwritten += text + "\n"
        if unwritten.utf8.count >= 16 * 1024 { writeUnwritten() }
    }

    private func writeUnwritten() {
        guard !unwritten.isEmpty else { return }
        Console.write(unwritten, to: STDERR_FILENO)
        unwritten.removeAll(keepingCapacity: true)
    }

    private func line(for result: DownloadResult) -> String {
        let name = result.item.label
        switch result.state {
        case .downloaded:
            let size = result.fileSize ?? result.bytes
            let fetched = size == result.bytes ? "" : " (fetched \(Self.bytes(result.bytes)))"
            return "downloaded \(name): \(Self.bytes(size))\(fetched) → \(result.path ?? "")"
        case .skipped: return "skipped \(name): \(result.error ?? "nothing to do")"
        case .failed: return "error: \(name): \(result.error ?? "failed")"
        case .paused: return "paused \(name)" + (result.error.map { $0 == "paused" ? "" : ": \($0)" } ?? "")
        case .cancelled: return "cancelled \(name)"
        }
    }

    private func clear() {
        guard drawnLines > 0 else { return }
        Console.write("\u{1B}[\(drawnLines)F\u{1B}[0J", to: STDERR_FILENO)
        drawnLines = 0
    }

    private func redraw() {
        let width = max(20, Int(podcast_terminal_columns(STDERR_FILENO)) - 1)
        var frame = drawnLines > 0 ? "\u{1B}[\(drawnLines)F" : ""
        for row in running {
            frame += "\u{1B}[2K" + DisplayWidth.truncate(bar(row, width: width), to: width) + "\n"
        }
        frame += "\u{1B}[0J"
        drawnLines = running.count
        Console.write(frame, to: STDERR_FILENO)
    }

    private func bar(_ row: Row, width: Int) -> String {
        let progress = row.progress
        let bytes = progress?.bytes ?? 0
        let total = progress?.total ?? row.item.entry.enclosureLength
        let percent = total.map { $0 > 0 ? "\(min(100, bytes * 100 / $0))%" : "" } ?? ""
        let amount = total.map { "\(Self.bytes(bytes)) of \(Self.bytes($0))" } ?? Self.bytes(bytes)
        let state: String
        if let retry = row.retry {
            state = "retry in \(Self.seconds(retry.at - .now)): \(retry.reason)"
        } else if let speed = progress?.speed {
            let eta = total.flatMap { total in
                speed > 0 && total > bytes ? "  ETA " + EpisodesRendering.clock(Int(Double(total - bytes) / speed)) : nil
            }
            state = (speed > 0 ? "\(Self.bytes(Int64(speed)))/s" : "") + (eta ?? "")
        } else {
            state = "waiting"
        }
        let details = [percent, amount, state].filter { !$0.isEmpty }.joined(separator: "  ")
        let number = row.item.number.map(String.init) ?? "-"
        let titleWidth = max(10, width - DisplayWidth.of(details) - 6 - number.count)
        let title = DisplayWidth.pad(DisplayWidth.truncate(row.item.entry.title.singleLine(), to: titleWidth), to: titleWidth, alignment: .left)
        return "\(number)  \(title)  \(details)"
    }

    /// `5 s`, rounded up, never negative.
    static func seconds(_ duration: Duration) -> String {
        let whole = max(0, duration.components.seconds + (duration.components.attoseconds > 0 ? 1 : 0))
        return "\(whole) s"
    }

    /// `48.2 MB`.
    static func bytes(_ count: Int64) -> String {
        ByteCount.text(count)
    }
}
