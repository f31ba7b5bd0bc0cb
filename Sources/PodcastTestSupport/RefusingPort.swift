/// A port on 127.0.0.1 that refuses every connection, reserved for as long as this value lives
/// (a freed port could be taken by another test's server running in parallel).
public final class RefusingPort: Sendable {
    private let socket: SocketDescriptor
    /// The reserved port.
    public let port: Int

    /// Reserves a port: bound, never listening.
    public init() throws {
        (socket, port) = try SocketDescriptor.boundToLoopback(listening: false)
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit {
        socket.close()
    }
}
