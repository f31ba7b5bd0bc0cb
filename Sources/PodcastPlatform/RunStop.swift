import Synchronization

/// SIGTERM or Ctrl-C to a long run (the background worker, an update): stop what is running (a
/// batch's downloads pause, a round of feed fetches ends) and start nothing more.
public final class RunStop: Sendable {
    private let state = Mutex<(stopping: Bool, interrupt: (@Sendable () -> Void)?)>((false, nil))

    /// A run not asked to stop.
    public init() {}

    /// True once `stop` was called.
    public var isStopping: Bool { state.withLock { $0.stopping } }

    /// Stops what runs, if anything, and everything later (any thread).
    public func stop() {
        let interrupt = state.withLock { state in
            state.stopping = true
            return state.interrupt
        }
        interrupt?()
    }

    /// What now runs (nil: nothing), as the call that stops it; called at once if already stopping.
    public func running(_ interrupt: (@Sendable () -> Void)?) {
        let stopping = state.withLock { state in
            state.interrupt = interrupt
            return state.stopping
        }
        if stopping { interrupt?() }
    }
}
