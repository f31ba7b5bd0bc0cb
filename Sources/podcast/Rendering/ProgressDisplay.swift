import Glibc
import PodcastKit

/// Shows downloads as they go, on stderr. On a terminal: one row per running episode redrawn in
/// place (`LiveFrame`, `ProgressLayout`), with how many more wait their turn. Otherwise (a pipe,
/// a log, `TERM=dumb`): a line when an episode starts, every tenth of its progress or 10 s, and
/// when it ends, written a few at a time; so also with `--verbose`, whose HTTP lines would break
/// a frame. `--quiet` keeps only errors and warnings.
final class ProgressDisplay {
    private let console: Console
    private let frame: LiveFrame?
    private let quiet: Bool
    /// Episodes the batch was asked for, when known: the display counts those not started yet.
    private let expected: Int?
    private var ended = 0
    private let numberWidth: Int
    /// Off a terminal, the lines not written yet. They go out with each progress update (at most
    /// 4 times a second while anything runs), with a warning or a retry, once 16 KiB gather, and
    /// at the end: 2,000 small episodes would otherwise cost 4,000 writes.
    private var unwritten = ""
    /// The running episodes in the order they started.
    private var running: [ProgressRow] = []

    /// Off a terminal, a running episode gets a line at least this often.
    static let plainInterval = Duration.seconds(10)

    /// A display for a batch of `items` (empty when the batch does not know them up front).
    init(console: Console, items: [DownloadItem] = []) {
        self.console = console
        let style = OutputStyle.current
        quiet = style.verbosity == .quiet
        // `--verbose` writes HTTP lines from the engine thread as they happen: a log, not a frame.
        let verbose = style.verbosity == .verbose
        frame = console.isLive(STDERR_FILENO) && !quiet && !verbose ? LiveFrame(descriptor: STDERR_FILENO, console: console) : nil
        expected = items.isEmpty ? nil : items.count
        numberWidth = max(1, String(items.compactMap(\.number).max() ?? 1).count)
    }

    /// Takes one update from the batch.
    func show(_ update: DownloadUpdate) {
        switch update {
        case .started(let item):
            if let row = row(of: item) {
                row.restart()
            } else {
                running.append(ProgressRow(item: item))
                if frame == nil { print("downloading \(item.label)") }
            }
        case .progress(let snapshot):
            let now = ContinuousClock.now
            for (item, progress) in snapshot {
                guard let row = row(of: item) else { continue }
                row.update(progress, now: now)
                if frame == nil { reportPlainly(row, now: now) }
            }
            writeUnwritten()
        case .finished(let result):
            running.removeAll { $0.shows(result.item) }
            ended += 1
            print(line(for: result), always: result.state == .failed)
        case .warning(let item, let message):
            print(OutputStyle.paint("warning:", .yellow) + " \(item.label): \(message)", always: true)
            writeUnwritten()
        case .notice(let message):
            print("note: \(message)")
            writeUnwritten()
        case .retrying(let item, let until, let reason):
            row(of: item)?.retry = (until, reason)
            if frame == nil { print("retrying \(item.label) in \(Self.seconds(until - .now)): \(reason)") }
            writeUnwritten()
        }
        redraw()
    }

    /// Prints `line` above the rows (a feed's news during an update) as it is; an `error:` line
    /// even with `--quiet`.
    func say(_ line: String) {
        print(line, always: line.hasPrefix("error:"))
        writeUnwritten()
        redraw()
    }

    /// Draws the last frame and gives the cursor back, or writes the last lines.
    func close() {
        guard let frame else { return writeUnwritten() }
        running.removeAll()
        redraw()
        frame.close()
    }

    private func row(of item: DownloadItem) -> ProgressRow? {
        running.first { $0.shows(item) }
    }

    /// Off a terminal: a line for `row` when it has passed another tenth, or after `plainInterval`.
    private func reportPlainly(_ row: ProgressRow, now: ContinuousClock.Instant) {
        guard !quiet, row.receiving else { return }
        let tenth = (row.percent ?? 0) / 10
        let due = now - row.reportedAt >= Self.plainInterval
        guard (tenth > row.reportedTenth && tenth < 10) || due else { return }
        row.reportedTenth = tenth
        row.reportedAt = now
        let amount = row.total.map { "\(ByteCount.text(row.bytes)) of \(ByteCount.text($0))" } ?? ByteCount.text(row.bytes)
        let percent = row.percent.map { "\($0)%, " } ?? ""
        let speed = row.speed(now: now).map { ", \(ByteCount.text(Int64($0)))/s" } ?? ""
        let stalled = row.stalled(now: now).map { ", stalled \(Self.seconds($0))" } ?? ""
        print("progress \(row.item.label): \(percent)\(amount)\(stalled.isEmpty ? speed : stalled)")
    }

    /// Prints a line that stays, above the rows (off a terminal, soon: see `unwritten`); with
    /// `--quiet`, only when `always`.
    private func print(_ text: String, always: Bool = false) {
        guard !quiet || always else { return }
        if let frame {
            frame.clear()
            return Console.write(text + "\n", to: STDERR_FILENO)
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
            return OutputStyle.paint("downloaded", .green) + " \(name): \(Self.bytes(size))\(fetched) → \(result.path ?? "")"
        case .skipped: return "skipped \(name): \(result.error ?? "nothing to do")"
        case .failed: return OutputStyle.paint("error:", .red) + " \(name): \(result.error ?? "failed")"
        case .paused: return "paused \(name)" + (result.error.map { $0 == "paused" ? "" : ": \($0)" } ?? "")
        case .cancelled: return "cancelled \(name)"
        }
    }

    private func redraw() {
        guard let frame else { return }
        let queued = expected.map { max(0, $0 - ended - running.count) } ?? 0
        let overflow = { (hidden: Int) -> String in
            let rows = hidden - (queued > 0 ? 1 : 0)
            guard rows > 0 else { return "\(queued) more queued" }
            return "+\(rows) more running" + (queued > 0 ? ", \(queued) queued" : "")
        }
        frame.draw(overflow: overflow) { width, _ in
            var lines = ProgressLayout(width: width, numberWidth: numberWidth).lines(running)
            if queued > 0 { lines.append("\(queued) more queued") }
            return lines
        }
    }

    /// `5 s`, rounded up, never negative.
    static func seconds(_ duration: Duration) -> String {
        let whole = max(0, duration.components.seconds + (duration.components.attoseconds > 0 ? 1 : 0))
        return "\(whole) s"
    }

    /// `48.2 MiB`.
    static func bytes(_ count: Int64) -> String {
        ByteCount.text(count)
    }
}
