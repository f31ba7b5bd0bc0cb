import CCurl
import Glibc
import PodcastHTTP
import PodcastPlatform
import Synchronization

/// Concurrent downloads over libcurl's multi interface, on one dedicated thread that owns every
/// curl handle. Other threads talk to it through `start`, `cancel` and `shutdown`, which post a
/// command and wake the thread with `curl_multi_wakeup`.
///
/// Events arrive through `onEvents`, on the engine thread, everything of one turn of its loop at
/// once: keep that callback short (hand the events to another thread); renaming files and database
/// writes belong there, not on the engine thread.
public final class TransferEngine: Sendable {
    /// How the engine behaves.
    public struct Settings: Sendable, Equatable {
        /// Transfers running at once; the rest wait their turn in order.
        public var concurrency: Int
        /// Feed transfers (`TransferLane.feed`) running at once, besides `concurrency`: enough to
        /// keep the connections of two dozen hosts busy in a round of hundreds of feeds (300
        /// feeds over 30 hosts answering 150-300 ms late: 4.5 s with 16 at once, see the note
        /// of issue 28 for 48).
        public var feedConcurrency: Int
        /// Connections to one host at once (politeness; more gains nothing).
        public var connectionsPerHost: Int
        /// A cap on the whole run's download speed, in bytes per second, shared by running transfers.
        public var rateLimit: Int?
        /// Identity, timeouts, redirects and headers of every request.
        public var http: HTTPSettings
        /// The most bytes one episode's file may hold (`max-episode-size`), asked of every request.
        public var maxEpisodeSize: Int64
        /// The room an episode of known size must leave free on its file system to start
        /// (`min-free-space`); the batch checks it (`FreeSpaceCheck`), not the engine.
        public var minFreeSpace: Int64

        /// The defaults: 3 at once (and 48 feeds), 2 per host, no speed cap, files up to 16 GiB,
        /// 1 GiB left free.
        public init(
            concurrency: Int = 3, feedConcurrency: Int = 48, connectionsPerHost: Int = 2, rateLimit: Int? = nil, http: HTTPSettings = HTTPSettings(),
            maxEpisodeSize: Int64 = TransferRequest.defaultMaxSize, minFreeSpace: Int64 = 1 << 30
        ) {
            self.concurrency = concurrency
            self.feedConcurrency = feedConcurrency
            self.connectionsPerHost = connectionsPerHost
            self.rateLimit = rateLimit
            self.http = http
            self.maxEpisodeSize = maxEpisodeSize
            self.minFreeSpace = minFreeSpace
        }
    }

    private let mailbox: EngineMailbox
    private let thread: pthread_t

    /// Starts the engine thread; `onEvents` receives every event, in order, on that thread.
    public init(settings: Settings, onEvents: @escaping @Sendable ([TransferEvent]) -> Void) throws(SystemError) {
        let mailbox = EngineMailbox()
        self.mailbox = mailbox
        // Made here so a failure is an error for the caller; from now on only the engine thread uses it.
        guard let multi = curl_multi_init() else { throw SystemError(call: "curl_multi_init", code: ENOMEM) }
        mailbox.attach(multi)
        let loop = EngineLoop(settings: settings, mailbox: mailbox, multi: multi, outbox: EngineOutbox(deliver: onEvents))
        thread = try ThreadStart.joinable { loop.run() }
    }

    /// Queues a transfer; it starts when a slot is free.
    public func start(_ request: TransferRequest) {
        mailbox.post(.start(request))
    }

    /// Stops the transfer `id` (running or waiting); it ends with a `.cancelled` failure.
    public func cancel(_ id: Int) {
        mailbox.post(.cancel(id))
    }

    /// Lets the transfer `id`, waiting at its answer (`TransferResponse.awaitsGoAhead`), write
    /// its body; nothing for a transfer that does not wait.
    public func goAhead(_ id: Int) {
        mailbox.post(.goAhead(id))
    }

    /// Stops every transfer and ends the engine thread, waiting for it. Transfers still running
    /// end with a `.cancelled` failure event first.
    public func shutdown() {
        guard mailbox.close() else { return }
        pthread_join(thread, nil)
    }

    deinit {
        shutdown()
    }
}

/// What callers ask of the engine thread.
enum EngineCommand: Sendable {
    case start(TransferRequest)
    case cancel(Int)
    case goAhead(Int)
}

/// The commands waiting for the engine thread, and the means to wake it.
final class EngineMailbox: Sendable {
    private struct State {
        var commands: [EngineCommand] = []
        var closed = false
        /// The multi handle's address. Kept as a number because a pointer is not Sendable; it is
        /// only turned back into a pointer under the lock, while the engine thread guarantees the
        /// handle is alive (it detaches before cleaning up).
        var multi: UInt = 0

        func wake() {
            if let multi = UnsafeMutableRawPointer(bitPattern: multi) { _ = curl_multi_wakeup(multi) }
        }
    }

    private let state = Mutex(State())

    /// Adds a command and wakes the engine thread (curl_multi_wakeup is safe from any thread);
    /// only the first of the commands waiting wakes it, as the thread takes them all at once.
    func post(_ command: EngineCommand) {
        state.withLock { state in
            guard !state.closed else { return }
            state.commands.append(command)
            if state.commands.count == 1 { state.wake() }
        }
    }

    /// Marks the mailbox closed and wakes the thread; false when it already was.
    func close() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.closed = true
            state.wake()
            return true
        }
    }

    /// The commands posted since the last call, and whether the engine should stop.
    func take() -> (commands: [EngineCommand], closed: Bool) {
        state.withLock { state in
            defer { state.commands.removeAll() }
            return (state.commands, state.closed)
        }
    }

    /// Tells the mailbox which multi handle to wake (nil once it is gone).
    func attach(_ multi: UnsafeMutableRawPointer?) {
        let address = UInt(bitPattern: multi)
        state.withLock { $0.multi = address }
    }
}
