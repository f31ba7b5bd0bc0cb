import Glibc
import PodcastKit
import PodcastText

/// The line that shows a slow or large feed being fetched (`fetching URL: 1.2 MB so far`), on
/// stderr and only when it is a terminal, redrawn in place as `FeedFetcher` reports progress, and
/// cleared before anything else is written (the table, a warning or an error).
final class FetchProgressLine {
    private let console: Console
    private let live: Bool
    private var drawn = false

    init(console: Console) {
        self.console = console
        live = console.stderrIsTerminal
    }

    /// Draws `progress` over the line drawn before, clipped to the terminal's width (else
    /// `$COLUMNS`, else 80) so that it never wraps.
    func show(_ progress: FeedFetchProgress) {
        guard live else { return }
        let width = max(20, console.size(of: STDERR_FILENO).columns - 1)
        let text = "fetching \(progress.url): \(ByteCount.text(Int64(progress.receivedBytes))) so far"
        Console.write("\r\u{1B}[2K" + DisplayWidth.truncate(text.singleLine(), to: width), to: STDERR_FILENO)
        drawn = true
    }

    /// Removes the line, if one was drawn.
    func clear() {
        guard drawn else { return }
        Console.write("\r\u{1B}[2K", to: STDERR_FILENO)
        drawn = false
    }
}
