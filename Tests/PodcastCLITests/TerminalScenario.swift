import Foundation
import PodcastKit
import PodcastTestSupport

/// What the terminal tests share: `podcast` on a pseudo-terminal of a given size, and the frames
/// a live display drew, read back from the bytes it wrote.
enum TerminalScenario {
    /// Starts `podcast arguments…` for `podcast`'s home on a `rows` x `columns` terminal.
    static func start(
        _ podcast: PodcastBinary, _ arguments: [String], rows: Int, columns: Int, environment extra: [String: String] = [:]
    ) throws -> TerminalSession {
        var environment = podcast.runEnvironment
        environment["TERM"] = "xterm-256color"
        environment.merge(extra) { $1 }
        return try TerminalSession(builtExecutable(named: "podcast"), arguments, environment: environment, rows: rows, columns: columns)
    }

    /// Every frame drawn in `text`, in order, as its lines. A frame is what one redraw wrote: lines
    /// each begun with "erase line" (ESC [2K) and ended by "erase below" (ESC [0J); a clear that
    /// draws nothing is no frame.
    static func frames(in text: String) -> [[String]] {
        let pieces = text.components(separatedBy: "\u{1B}[0J")
        return pieces.dropLast().compactMap { piece in
            let lines = piece.components(separatedBy: "\u{1B}[2K").dropFirst()
            guard !lines.isEmpty else { return nil }
            return lines.map { $0.hasSuffix("\n") ? String($0.dropLast()) : $0 }
        }
    }

    /// The escape sequences that begin each frame (cursor moves, cursor shown or hidden), in order.
    static func frameStarts(in text: String) -> [String] {
        text.components(separatedBy: "\u{1B}[0J").dropLast().map { piece in
            let start = piece.components(separatedBy: "\u{1B}[2K").first ?? ""
            return String(start.suffix(16))
        }
    }

    /// The process' state letter from /proc (`T` when stopped), or nil when it is gone.
    static func processState(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: end)...].split(separator: " ").first?.first
    }
}
