import Synchronization

/// Where `--verbose` sends each HTTP request and answer: one line per hop, its URLs whole (the
/// console masks their secrets, as in all it writes). Off (no sink) unless the command line
/// asks; a line is only built when there is a sink.
public enum HTTPTrace {
    private static let sink = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sends every later line to `record` (called on the thread that made the request).
    public static func record(_ record: @escaping @Sendable (String) -> Void) {
        sink.withLock { $0 = record }
    }

    /// Records `line` when a sink is set.
    static func note(_ line: @autoclosure () -> String) {
        guard let record = sink.withLock({ $0 }) else { return }
        record(line())
    }
}
