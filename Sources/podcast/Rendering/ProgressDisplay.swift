import CTerminal
import Glibc
import PodcastKit

/// Shows downloads as they go, on stderr: on a terminal, one bar per running episode redrawn in
/// place (each frame written at once, clipped to the width, cursor hidden meanwhile); otherwise
/// one plain line when an episode starts and one when it ends.
final class ProgressDisplay {
    private let console: Console
    private let live: Bool
    /// The running episodes by number (at most the concurrency), and where each stands.
    private var running: [Int: (item: DownloadItem, progress: TransferProgress?)] = [:]
    private var drawnLines = 0

    init(console: Console) {
        self.console = console
        live = console.stderrIsTerminal
        if live { Console.write("\u{1B}[?25l", to: STDERR_FILENO) }
    }

    /// Takes one update from the batch.
    func show(_ update: DownloadUpdate) {
        switch update {
        case .started(let item):
            running[item.number] = (item, nil)
            if !live { console.message("downloading \(item.number): \(item.entry.title)") }
        case .progress(let snapshot):
            for (item, progress) in snapshot {
                running[item.number]?.progress = progress
            }
        case .finished(let result):
            running[result.item.number] = nil
            print(line(for: result))
        }
        if live { redraw() }
    }

    /// Draws the last frame and gives the cursor back.
    func close() {
        guard live else { return }
        running.removeAll()
        redraw()
        Console.write("\u{1B}[?25h", to: STDERR_FILENO)
    }

    /// Prints a line that stays, above the bars.
    private func print(_ text: String) {
        if live { clear() }
        console.message(text)
    }

    private func line(for result: DownloadResult) -> String {
        let name = "episode \(result.item.number) (\(result.item.entry.title))"
        switch result.state {
        case .downloaded: return "downloaded \(name): \(Self.bytes(result.bytes)) → \(result.path ?? "")"
        case .skipped: return "skipped \(name): \(result.error ?? "nothing to do")"
        case .failed: return "error: \(name): \(result.error ?? "failed")"
        case .paused: return "paused \(name)"
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
        for (_, (item, progress)) in running.sorted(by: { $0.key < $1.key }) {
            frame += "\u{1B}[2K" + DisplayWidth.truncate(bar(item, progress, width: width), to: width) + "\n"
        }
        frame += "\u{1B}[0J"
        drawnLines = running.count
        Console.write(frame, to: STDERR_FILENO)
    }

    private func bar(_ item: DownloadItem, _ progress: TransferProgress?, width: Int) -> String {
        let bytes = progress?.bytes ?? 0
        let total = progress?.total ?? item.entry.enclosureLength
        let percent = total.map { $0 > 0 ? "\(min(100, bytes * 100 / $0))%" : "" } ?? ""
        let amount = total.map { "\(Self.bytes(bytes)) of \(Self.bytes($0))" } ?? Self.bytes(bytes)
        let speed = progress.map { $0.speed > 0 ? "\(Self.bytes(Int64($0.speed)))/s" : "" } ?? "waiting"
        let eta: String = if let total, let speed = progress?.speed, speed > 0, total > bytes {
            "ETA " + EpisodesRendering.clock(Int(Double(total - bytes) / speed))
        } else { "" }
        let details = [percent, amount, speed, eta].filter { !$0.isEmpty }.joined(separator: "  ")
        let titleWidth = max(10, width - DisplayWidth.of(details) - 6 - String(item.number).count)
        let title = DisplayWidth.pad(DisplayWidth.truncate(item.entry.title.singleLine(), to: titleWidth), to: titleWidth, alignment: .left)
        return "\(item.number)  \(title)  \(details)"
    }

    /// `48.2 MB`.
    static func bytes(_ count: Int64) -> String {
        EpisodesRendering.size(count)
    }
}
