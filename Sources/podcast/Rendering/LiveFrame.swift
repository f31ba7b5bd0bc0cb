import Glibc
import PodcastKit
import PodcastText

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

    /// Draws over the last frame the lines `layout` makes for the room the terminal has: `width`
    /// columns a line may take and `height` lines, read once for the whole frame, so that a
    /// resize in the middle of one cannot lay it out for one size and cut it for another. Lines
    /// that still do not fit are cut: the first ones are drawn and then `overflow(hidden)`, a line
    /// saying how many were left out.
    func draw(overflow: (Int) -> String, _ layout: (_ width: Int, _ height: Int) -> [String]) {
        let events = TerminalSignals.take()
        let (columns, rows) = console.size(of: descriptor)
        let width = max(10, columns - 1)
        let room = max(2, rows - 1)
        let lines = layout(width, room)
        var shown = lines
        if lines.count > room {
            shown = Array(lines.prefix(room - 1)) + [overflow(lines.count - (room - 1))]
        }
        var frame = ""
        if !cursorHidden || !events.isEmpty {
            frame += "\u{1B}[?25l"
            cursorHidden = true
        }
        frame += moveToTop(after: events, columns: columns, rows: rows)
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
        let size = console.size(of: descriptor)
        let up = moveToTop(after: events, columns: size.columns, rows: size.lines)
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
    /// or, after a resize, as many as its lines take at the new width (`columns`; a terminal that
    /// rewraps them makes each wider line two or more), at most the screen's `rows` less one;
    /// after a stop, nowhere (the shell wrote below it).
    private func moveToTop(after events: TerminalSignals.Events, columns: Int, rows screenRows: Int) -> String {
        if events.contains(.continued) { return "" }
        var rows = drawn.count
        if events.contains(.resized) || columns != drawnColumns {
            let columns = max(1, columns)
            rows = drawn.reduce(0) { $0 + max(1, ($1 + columns - 1) / columns) }
            rows = min(rows, screenRows - 1)
        }
        return rows > 0 ? "\r\u{1B}[\(rows)F" : ""
    }
}
