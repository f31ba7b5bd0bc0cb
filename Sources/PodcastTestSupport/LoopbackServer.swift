/// An HTTP/1.1 server on 127.0.0.1 at a kernel-chosen port, with a route per behaviour, for tests and the demo.
///
/// Each connection is served on its own thread, so blocking socket calls never occupy Swift's cooperative pool.
public final class LoopbackServer: Sendable {
    private let core: ServerCore

    /// Binds 127.0.0.1 on a free port and starts serving `routes`, keyed by path without query.
    public init(routes: [String: ServerRoute] = [:]) throws {
        core = try ServerCore(routes: routes)
        core.start()
    }

    deinit {
        core.stop()
    }

    /// The port the server listens on.
    public var port: Int { core.port }

    /// The server's origin, such as `http://127.0.0.1:40123`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The absolute URL for a path (with or without query) on this server.
    public func url(_ path: String) -> String {
        path.hasPrefix("/") ? baseURL + path : baseURL + "/" + path
    }

    /// Adds or replaces the route for `path` while running; requests already being answered keep the old one.
    public func setRoute(_ path: String, _ route: ServerRoute) {
        core.setRoute(path, route)
    }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { core.requests }

    /// The most requests that were ever being answered at once.
    public var peakRequestsInFlight: Int { core.peakRequestsInFlight }

    /// How many requests arrived for `path`, ignoring query strings.
    public func requestCount(path: String) -> Int {
        core.requests.count { $0.path == path }
    }

    /// Stops accepting and ends every open connection, stalled ones included; returns without waiting and may be called again.
    public func stop() {
        core.stop()
    }
}
