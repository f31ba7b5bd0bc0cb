import Glibc
import PodcastKit

/// A block of lines redrawn in place at the bottom of a terminal: each frame is written at once,
/// every line clipped to the width less one (so nothing wraps) and the block to the height less
/// one (so nothing scrolls), with the cursor hidden meanwhile. After a resize the whole frame is
/// redrawn over what the old one became; after Ctrl-Z and `fg`, a new frame starts below what
/// the shell wrote.
final class LiveFrame {
    private let descriptor: Int32
    private let console: Console
    /// The display width of each line of the frame on screen.
    private var drawn: [Int] = []
    /// The terminal's columns when the frame on screen was drawn: a resize shows itself here even
    /// before its SIGWINCH arrives.
    private var drawnColumns = 0
    private var cursorHidden = false

    init(descriptor: Int32, console: Console) {
        self.descriptor = descriptor
        self.console = console
        TerminalSignals.watch(descriptor)
    }

    /// The terminal's columns now.
    var columns: Int { console.columns(of: descriptor) }

    /// The terminal's lines now.
    var rows: Int { console.lines(of: descriptor) }

    /// Draws `lines` over the last frame. When they do not fit the terminal's height, the first
    /// ones are drawn and then `overflow(hidden)`, a line saying how many were left out.
    func draw(_ lines: [String], overflow: (Int) -> String) {
        let events = TerminalSignals.take()
        let width = max(10, columns - 1)
        let room = max(2, rows - 1)
        var shown = lines
        if lines.count > room {
            shown = Array(lines.prefix(room - 1)) + [overflow(lines.count - (room - 1))]
        }
        var frame = ""
        if !cursorHidden || !events.isEmpty {
            frame += "\u{1B}[?25l"
            cursorHidden = true
        }
        frame += moveToTop(after: events)
        drawn = []
        drawnColumns = columns
        for line in shown {
            let clipped = DisplayWidth.truncate(line, to: width)
            drawn.append(DisplayWidth.of(clipped))
            frame += "\u{1B}[2K" + clipped + "\n"
        }
        frame += "\u{1B}[0J"
        Console.write(frame, to: descriptor)
    }

    /// Erases the frame, leaving the cursor where it began (to print a line that stays).
    func clear() {
        let events = TerminalSignals.take()
        let up = moveToTop(after: events)
        // Back from a stop, the cursor is shown: the next frame hides it again.
        if !events.isEmpty { cursorHidden = false }
        drawn = []
        guard !up.isEmpty else { return }
        Console.write(up + "\u{1B}[0J", to: descriptor)
    }

    /// Gives the cursor back; the last frame stays on screen.
    func close() {
        Console.write("\u{1B}[?25h", to: descriptor)
        cursorHidden = false
        TerminalSignals.release()
    }

    /// The escape that moves the cursor to the frame's first line: up as many lines as it has,
    /// or, after a resize, as many as its lines take at the new width (a terminal that rewraps
    /// them makes each wider line two or more); after a stop, nowhere (the shell wrote below it).
    private func moveToTop(after events: TerminalSignals.Events) -> String {
        if events.contains(.continued) { return "" }
        var rows = drawn.count
        if events.contains(.resized) || columns != drawnColumns {
            let columns = max(1, self.columns)
            rows = drawn.reduce(0) { $0 + max(1, ($1 + columns - 1) / columns) }
            rows = min(rows, self.rows - 1)
        }
        return rows > 0 ? "\r\u{1B}[\(rows)F" : ""
    }
}
