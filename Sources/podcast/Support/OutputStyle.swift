import Glibc
import PodcastHTTP
import PodcastKit
import Synchronization

/// How this run's messages look and how many there are. Set once by `Podcast.main` from the
/// command's `OutputOptions` and the environment, before the command runs; read by every write,
/// from any thread.
struct OutputStyle: Sendable {
    /// How much is said on stderr.
    enum Verbosity: Sendable {
        /// Errors and warnings only.
        case quiet
        /// Progress, notes and summaries too.
        case normal
        /// And each HTTP request and answer, and every retry decision.
        case verbose
    }

    /// How much is said.
    var verbosity = Verbosity.normal
    /// Whether stderr's messages are coloured.
    var colour = false

    /// This run's style.
    static var current: OutputStyle { state.withLock { $0 } }

    private static let state = Mutex(OutputStyle())

    /// Sets this run's style from `options` and the environment: colour on `always`, or on
    /// `auto` when stderr is a terminal that is not `dumb` and NO_COLOR is unset or empty.
    static func apply(_ options: OutputOptions, environment: [String: String]) {
        let colour: Bool
        switch options.color {
        case .always: colour = true
        case .never: colour = false
        case .auto:
            colour = isatty(STDERR_FILENO) == 1 && Console.isCapable(environment: environment)
                && (environment["NO_COLOR"] ?? "").isEmpty
        }
        let verbosity: Verbosity = options.quiet ? .quiet : options.verbose ? .verbose : .normal
        state.withLock { $0 = OutputStyle(verbosity: verbosity, colour: colour) }
        if verbosity == .verbose {
            HTTPTrace.record { line in Console.write("http: " + line + "\n", to: STDERR_FILENO) }
        }
    }

    /// The colours messages use.
    enum Colour: String {
        case red = "31", yellow = "33", green = "32"
    }

    /// `text` in `colour` when this run colours its messages, else `text` itself.
    static func paint(_ text: String, _ colour: Colour) -> String {
        current.colour ? "\u{1B}[\(colour.rawValue)m" + text + "\u{1B}[0m" : text
    }
}
