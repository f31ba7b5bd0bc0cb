import CTerminal
import Glibc
import PodcastKit

/// Where a command's output goes: data on stdout, messages and progress on stderr.
struct Console {
    /// Whether stdout is a terminal (tables fitted to it, JSON indented).
    let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    /// Whether stderr is a terminal (hints and live progress only then).
    let stderrIsTerminal = isatty(STDERR_FILENO) == 1
    /// `$COLUMNS`, used as the width when stdout is not a terminal.
    let columnsVariable: Int?

    init(environment: [String: String]) {
        columnsVariable = environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The width tables are fitted to: the terminal's, else `$COLUMNS`, else none (pipes get whole lines).
    var outputWidth: Int? {
        let columns = Int(podcast_terminal_columns(STDOUT_FILENO))
        return columns > 0 ? columns : columnsVariable
    }

    /// Writes `text` and a newline to stdout.
    func print(_ text: String) {
        Self.write(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes a message line to stderr.
    func message(_ text: String) {
        Self.write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes `note: text` to stderr.
    func note(_ text: String) {
        message("note: " + text)
    }

    /// Writes `warning: text` to stderr.
    func warning(_ text: String) {
        message("warning: " + text)
    }

    /// Writes a hint for the next step to stderr, only for a person at a terminal.
    func hint(_ text: String) {
        if stderrIsTerminal { message(text) }
    }

    /// Writes all of `text`, retrying short writes and EINTR, without bidirectional controls
    /// (which a feed's text may hold, and which would reorder the line around them). When the
    /// reader of stdout has gone (`podcast search x | head -1`), the output is no longer wanted:
    /// exit quietly. A closed stderr is ignored, so the exit status still tells what happened.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text.removingBidiControls()
        text.withUTF8 { Self.write(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    /// Writes all of `bytes`, as `write(_:to:)` writes a text.
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        var rest = bytes
        while !rest.isEmpty {
            let written = Glibc.write(descriptor, rest.baseAddress, rest.count)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE && descriptor == STDOUT_FILENO { exit(0) }
                return
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
    }
}
