import CTerminal
import Glibc
import PodcastKit
import PodcastPlatform
import PodcastText
import Synchronization

/// Where a command's output goes: data on stdout, messages and progress on stderr.
struct Console {
    /// Whether stdout is a terminal (tables fitted to it, JSON indented).
    let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    /// Whether stderr is a terminal (hints and live progress only then).
    let stderrIsTerminal = isatty(STDERR_FILENO) == 1
    /// `$COLUMNS`, used as the width when stdout is not a terminal or the terminal reports none.
    let columnsVariable: Int?
    /// `$LINES`, used as the height when the terminal reports none.
    let linesVariable: Int?
    /// False for `TERM=dumb`: a terminal that understands no escape sequences.
    let terminalIsCapable: Bool

    init(environment: [String: String]) {
        columnsVariable = environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        linesVariable = environment["LINES"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        terminalIsCapable = Self.isCapable(environment: environment)
    }

    /// False when `TERM` is `dumb`: such a terminal (Emacs' shell, some CI logs) shows escape
    /// sequences as text, so it gets no colour, no cursor movement and plain progress lines.
    static func isCapable(environment: [String: String]) -> Bool {
        environment["TERM"] != "dumb"
    }

    /// The width tables are fitted to: the terminal's, else `$COLUMNS`, else none (pipes get whole lines).
    var outputWidth: Int? {
        let columns = Self.reportedSize(of: STDOUT_FILENO).columns
        return columns > 0 ? columns : columnsVariable
    }

    /// Whether a display may redraw itself in place on `descriptor`: a terminal that understands escapes.
    func isLive(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1 && terminalIsCapable
    }

    /// The size of the terminal on `descriptor`, both read at one moment: each what it reports,
    /// else `$COLUMNS` and `$LINES` (a terminal that reports 0, as some serial consoles and
    /// containers do), else 80 columns and 24 lines.
    func size(of descriptor: Int32) -> (columns: Int, lines: Int) {
        let (columns, lines) = Self.reportedSize(of: descriptor)
        return (columns > 0 ? columns : columnsVariable ?? 80, lines > 0 ? lines : linesVariable ?? 24)
    }

    /// What the terminal on `descriptor` reports, both with one `ioctl`; 0 for what it does not.
    private static func reportedSize(of descriptor: Int32) -> (columns: Int, lines: Int) {
        var lines: Int32 = 0
        var columns: Int32 = 0
        podcast_terminal_size(descriptor, &lines, &columns)
        return (Int(columns), Int(lines))
    }

    /// Writes `text` and a newline to stdout.
    func print(_ text: String) {
        Self.write(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes an informational line to stderr (left out with `--quiet`).
    func message(_ text: String) {
        guard OutputStyle.current.verbosity != .quiet else { return }
        Self.write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes `note: text` to stderr (left out with `--quiet`).
    func note(_ text: String) {
        message("note: " + text)
    }

    /// Writes `warning: text` to stderr, in yellow on a colour terminal; also with `--quiet`.
    func warning(_ text: String) {
        Self.write(OutputStyle.paint("warning:", .yellow) + " " + text + "\n", to: STDERR_FILENO)
    }

    /// Writes `error: text` to stderr, in red on a colour terminal; also with `--quiet`.
    func error(_ text: String) {
        Self.write(Self.errorLine(text), to: STDERR_FILENO)
    }

    /// `error: text` and a newline, the prefix in red on a colour terminal.
    static func errorLine(_ text: String) -> String {
        OutputStyle.paint("error:", .red) + " " + text + "\n"
    }

    /// Writes a line of `--verbose` detail to stderr.
    func detail(_ text: String) {
        guard OutputStyle.current.verbosity == .verbose else { return }
        Self.write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes a hint for the next step to stderr, only for a person at a terminal.
    func hint(_ text: String) {
        if stderrIsTerminal { message(text) }
    }

    // MARK: Writing

    /// The first error writing stdout, if any (a full disk, a closed descriptor): the command's
    /// output is incomplete, so the run must not exit 0.
    static var outputFailure: SystemError? { stdout.withLock { $0.failure } }

    private struct StdoutState {
        var failure: SystemError?
        var closedAtStart = false
    }

    private static let stdout = Mutex(StdoutState())

    /// Makes sure descriptors 0–2 are open before anything else opens a file: a command started
    /// with stdout closed (`>&-`) would otherwise write its output into whatever file got
    /// descriptor 1 next (the state store). A closed stdout is remembered, so writing to it fails.
    static func guardStandardDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 {
            let null = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != descriptor {
                dup2(null, descriptor)
                close(null)
            }
            if descriptor == STDOUT_FILENO { stdout.withLock { $0.closedAtStart = true } }
        }
    }

    /// Writes all of `text` with the secrets of every URL in it masked (`SecretRedactor`) and
    /// without bidirectional controls (which a feed's text may hold, and which would reorder the
    /// line around them). Everything podcast prints passes here or through `write(_:to:)` for
    /// bytes: the one place a URL's password or token is hidden, so no message can forget it.
    static func write(_ text: String, to descriptor: Int32) {
        var text = SecretRedactor.redacted(text.removingBidiControls())
        text.withUTF8 { emit(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    /// Writes all of `bytes` (UTF-8) with the secrets of every URL in them masked, as
    /// `write(_:to:)` writes a text. Each call must hold whole lines or whole JSON values (as
    /// `JSONWriter` hands them on), so that no URL is parted between two.
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        SecretRedactor.redact(bytes) { emit($0, to: descriptor) }
    }

    /// Writes a document of the user's own to stdout as it is, URLs and their secrets included:
    /// `export`'s OPML, which must name each feed as subscribed to be imported again. Nothing else
    /// may write unmasked.
    static func writeUsersDocument(_ document: String) {
        var document = document.removingBidiControls()
        document.withUTF8 { emit(UnsafeRawBufferPointer($0), to: STDOUT_FILENO) }
    }

    /// Writes all of `bytes`, retrying short writes and EINTR. When the reader of stdout has gone
    /// (`podcast search x | head -1`), the output is no longer wanted: exit quietly. Any other
    /// failure on stdout is kept for `outputFailure` and later writes there are skipped. A
    /// failing stderr is ignored, so the exit status still tells what happened.
    private static func emit(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        if descriptor == STDOUT_FILENO {
            let skip = stdout.withLock { state in
                if state.closedAtStart && state.failure == nil { state.failure = SystemError(call: "write", code: EBADF) }
                return state.failure != nil
            }
            if skip { return }
        }
        var rest = bytes
        while !rest.isEmpty {
            let written = Glibc.write(descriptor, rest.baseAddress, rest.count)
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EPIPE && descriptor == STDOUT_FILENO { exit(0) }
                if descriptor == STDOUT_FILENO {
                    stdout.withLock { $0.failure = $0.failure ?? SystemError(call: "write", code: code) }
                }
                return
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
    }
}
