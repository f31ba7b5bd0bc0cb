import Foundation
import Synchronization

/// The listening socket, the routes, the request log and the open connections, shared by every server thread.
///
/// Kept apart from `LoopbackServer` so the threads retain this and not the public object, whose deinit stops them.
final class ServerCore: Sendable {
    /// The port the kernel assigned on 127.0.0.1.
    let port: Int
    private let listener: SocketDescriptor
    private let state: Mutex<State>

    private struct State {
        var routes: [String: ServerRoute]
        var requests: [RecordedRequest] = []
        var openConnections: Set<SocketDescriptor> = []
        var acceptedConnections = 0
        /// Requests whose answer is still being written, and the most there ever were at once.
        var requestsInFlight = 0
        var peakRequestsInFlight = 0
        var isStopped = false
    }

    /// Binds and listens; serving starts with `start()`.
    init(routes: [String: ServerRoute]) throws {
        (listener, port) = try SocketDescriptor.listeningOnLoopback()
        state = Mutex(State(routes: routes))
    }

    /// Starts the accept thread.
    func start() {
        let thread = Thread { [self] in acceptConnections() }
        thread.name = "LoopbackServer :\(port) accept"
        thread.start()
    }

    /// Shuts the listener and every open connection so blocked threads wake and end; safe to call more than once.
    func stop() {
        state.withLock { state in
            guard !state.isStopped else { return }
            state.isStopped = true
            // Under the lock, because a connection's thread closes its descriptor only after unregistering under
            // this same lock: no descriptor here can have been closed and its number reused by someone else.
            listener.shutdown()
            for connection in state.openConnections {
                connection.shutdown()
            }
        }
    }

    /// Adds or replaces the route for a path, for requests that arrive from now on.
    func setRoute(_ path: String, _ route: ServerRoute) {
        state.withLock { $0.routes[path] = route }
    }

    /// The route for a path without query, if any.
    func route(for path: String) -> ServerRoute? {
        state.withLock { $0.routes[path] }
    }

    /// Every request so far, in arrival order.
    var requests: [RecordedRequest] {
        state.withLock { $0.requests }
    }

    /// The most requests that were ever being answered at once: the client's concurrency as the
    /// server saw it (a limit on connections per host can be no lower).
    var peakRequestsInFlight: Int {
        state.withLock { $0.peakRequestsInFlight }
    }

    /// Logs a request and gives it the next arrival index; it is in flight until `answered`.
    func record(_ head: HTTPRequestHead, connection: Int) -> RecordedRequest {
        state.withLock { state in
            let request = RecordedRequest(
                index: state.requests.count, connection: connection,
                method: head.method, target: head.target, headers: head.headers
            )
            state.requests.append(request)
            state.requestsInFlight += 1
            state.peakRequestsInFlight = max(state.peakRequestsInFlight, state.requestsInFlight)
            return request
        }
    }

    /// A recorded request's answer was written, or its connection ended.
    func answered() {
        state.withLock { $0.requestsInFlight -= 1 }
    }

    private var isStopped: Bool {
        state.withLock { $0.isStopped }
    }

    private func acceptConnections() {
        // This thread is the listener's only user, so it alone closes it; stop() only shuts it down.
        defer { listener.close() }
        while true {
            let connection: SocketDescriptor
            do {
                connection = try listener.accept()
            } catch {
                // After stop() this is the expected EINVAL. Before it, the failure is transient (ECONNABORTED,
                // EMFILE) and the only one who could act on it is the test, which will see its request fail.
                if isStopped { return }
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            guard let ordinal = register(connection) else {
                connection.close()
                return
            }
            let thread = Thread { [self] in
                var served = ServerConnection(core: self, socket: connection, ordinal: ordinal)
                served.serve()
                // FIN, then a bounded drain while still registered (so stop() can cut it short), then close.
                connection.shutdownWriting()
                connection.discardUntilClosed(upTo: .seconds(1))
                unregister(connection)
                connection.close()
            }
            thread.name = "LoopbackServer :\(port) connection \(ordinal)"
            thread.start()
        }
    }

    /// Tracks a new connection so stop() can shut it; nil once stopped, when it must not be served.
    private func register(_ connection: SocketDescriptor) -> Int? {
        state.withLock { state in
            guard !state.isStopped else { return nil }
            state.openConnections.insert(connection)
            defer { state.acceptedConnections += 1 }
            return state.acceptedConnections
        }
    }

    private func unregister(_ connection: SocketDescriptor) {
        _ = state.withLock { $0.openConnections.remove(connection) }
    }
}
