/// Values whose memory is left for the end of the process to reclaim. A command that is about to
/// exit gains nothing from freeing a large structure piece by piece: a listing of 10,000 episodes
/// takes about 20 ms to tear down, a tenth of reading it.
enum KeptUntilExit {
    /// Only the main thread, finishing a command, adds to it.
    nonisolated(unsafe) private static var values: [Any] = []

    /// Keeps `value` alive until the process exits.
    static func keep(_ value: Any) {
        values.append(value)
    }
}
