import Foundation
import Glibc
import PodcastKit
import PodcastPlatform

/// A socket file descriptor and every system call the server makes on it.
///
/// The one choke point that retries EINTR and turns errno into a `SystemError` naming the call.
struct SocketDescriptor: Hashable {
    /// The descriptor number.
    let raw: Int32

    /// A socket listening on 127.0.0.1 at a port the kernel picks.
    static func listeningOnLoopback() throws -> (socket: SocketDescriptor, port: Int) {
        try boundToLoopback(listening: true)
    }

    /// A socket bound to 127.0.0.1 at a port the kernel picks; unless `listening`, connections to
    /// that port are refused for as long as the socket stays open, and no other socket can take it.
    static func boundToLoopback(listening: Bool) throws -> (socket: SocketDescriptor, port: Int) {
        // CLOEXEC so processes the tests spawn (curl, gzip) never inherit a server socket and keep it open.
        let raw = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard raw >= 0 else { throw SystemError.last("socket") }
        let socket = SocketDescriptor(raw: raw)
        do {
            try socket.setOption(SOL_SOCKET, SO_REUSEADDR, 1, call: "setsockopt(SO_REUSEADDR)")
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(raw, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw SystemError.last("bind") }
            guard !listening || Glibc.listen(raw, 128) == 0 else { throw SystemError.last("listen") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.getsockname(raw, $0, &length)
                }
            }
            guard named == 0 else { throw SystemError.last("getsockname") }
            return (socket, Int(UInt16(bigEndian: address.sin_port)))
        } catch {
            socket.close()
            throw error
        }
    }

    /// Waits for the next connection; fails once the listener has been shut down.
    func accept() throws -> SocketDescriptor {
        let raw = try retryingEINTR("accept") { Glibc.accept(self.raw, nil, nil) }
        let connection = SocketDescriptor(raw: Int32(raw))
        // accept4(SOCK_CLOEXEC) is hidden from Swift behind _GNU_SOURCE; the brief window before this is harmless
        // because Foundation's Process closes inherited descriptors in the child anyway.
        _ = fcntl(connection.raw, F_SETFD, FD_CLOEXEC)
        // Without this, a head and body sent as two writes meet Nagle plus delayed ACK: 40 ms per response.
        try? connection.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1, call: "setsockopt(TCP_NODELAY)")
        return connection
    }

    /// Reads what is available into `buffer`, returning 0 at end of stream.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try retryingEINTR("recv") { Glibc.recv(raw, buffer.baseAddress, buffer.count, 0) }
    }

    /// Writes all of `bytes`, or throws when the peer has gone or the socket was shut down.
    func send(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // MSG_NOSIGNAL: a client that hangs up must produce EPIPE here, not a SIGPIPE that kills the test run.
                let sent = try retryingEINTR("send") {
                    Glibc.send(raw, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, Int32(MSG_NOSIGNAL))
                }
                offset += sent
            }
        }
    }

    /// Waits up to `interval`; true as soon as the peer hangs up or the socket is shut down.
    ///
    /// Used for pacing instead of a plain sleep so that `stop()` and departing clients end a slow response at once.
    func waitForHangUp(upTo interval: Duration) -> Bool {
        let deadline = ContinuousClock.now + interval
        // POLLRDHUP (peer shut down its writing side) is hidden from Swift behind _GNU_SOURCE; the value is Linux's.
        let peerHungUp: Int16 = 0x2000
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            var entry = pollfd(fd: raw, events: peerHungUp, revents: 0)
            let ready = Glibc.poll(&entry, 1, Self.pollTimeout(remaining))
            if ready < 0 {
                if errno == EINTR { continue }
                return true
            }
            if ready > 0, entry.revents & (peerHungUp | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0 {
                return true
            }
        }
    }

    /// Reads and discards until the peer closes or the socket is shut down: how a stalled response "hangs".
    func discardUntilClosed() {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = scratch.withUnsafeMutableBytes { try? receive(into: $0) }
            guard let count, count > 0 else { return }
        }
    }

    /// Like `discardUntilClosed`, but gives up after `limit`.
    ///
    /// Closing with unread bytes queued makes the kernel send RST, which can destroy a response the client has
    /// not read yet (a 431 sent while the client is still writing its head); draining first avoids that.
    func discardUntilClosed(upTo limit: Duration) {
        let deadline = ContinuousClock.now + limit
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return }
            var entry = pollfd(fd: raw, events: Int16(POLLIN), revents: 0)
            let ready = Glibc.poll(&entry, 1, Self.pollTimeout(remaining))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return }
            let count = scratch.withUnsafeMutableBytes { try? receive(into: $0) }
            guard let count, count > 0 else { return }
        }
    }

    /// Shuts down both directions; wakes any thread blocked in `accept`, `recv`, `send` or `poll` on this socket.
    func shutdown() {
        _ = Glibc.shutdown(raw, Int32(SHUT_RDWR))
    }

    /// Sends FIN so the client sees a clean end of stream before the descriptor is closed.
    func shutdownWriting() {
        _ = Glibc.shutdown(raw, Int32(SHUT_WR))
    }

    /// Releases the descriptor; only the thread that owns the socket may call this, so the number is never reused under another thread.
    func close() {
        _ = Glibc.close(raw)
    }

    /// Milliseconds for poll(2), rounded up so a wait never ends before its deadline and spins.
    private static func pollTimeout(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    private func setOption(_ level: Int32, _ name: Int32, _ value: Int32, call: String) throws {
        var value = value
        guard Glibc.setsockopt(raw, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SystemError.last(call)
        }
    }
}

/// Repeats `body` while it fails with EINTR; any other failure becomes a `SystemError` naming `call`.
private func retryingEINTR<Result: BinaryInteger>(_ call: String, _ body: () -> Result) throws -> Int {
    while true {
        let result = body()
        if result >= 0 { return Int(result) }
        if errno == EINTR { continue }
        throw SystemError.last(call)
    }
}
