/// One client connection: reads requests one after another and answers each, until either side ends it.
///
/// Runs on its own thread and is that thread's alone, so it needs no locking of its own.
struct ServerConnection {
    let core: ServerCore
    let socket: SocketDescriptor
    /// The connection's position in accept order, recorded with each request.
    let ordinal: Int
    /// Bytes received but not yet consumed: a pipelining client may send the next request early.
    private var pending: [UInt8] = []

    /// A head larger than this is refused with 431 rather than buffered without bound.
    private static let headLimit = 64 * 1024
    private static let headTerminator: [UInt8] = Array("\r\n\r\n".utf8)

    init(core: ServerCore, socket: SocketDescriptor, ordinal: Int) {
        self.core = core
        self.socket = socket
        self.ordinal = ordinal
    }

    /// Serves requests until the client closes, a response ends the connection, or the server stops.
    mutating func serve() {
        do {
            while try serveNextRequest() {}
        } catch {
            // The client hung up or stop() shut the socket: the normal end of a test connection, and the
            // client under test is the one that must notice and report it.
        }
    }

    /// Answers one request; true when the connection may carry another.
    private mutating func serveNextRequest() throws -> Bool {
        let head: HTTPRequestHead
        switch try readHead() {
        case .closed:
            return false
        case .tooLarge:
            return try deliver(.text(431, "request head larger than 64 KiB\n"), method: "GET", minorVersion: 1, keepAlive: false)
        case .head(let bytes):
            guard let parsed = HTTPRequestHead(parsing: bytes) else {
                return try deliver(.text(400, "malformed request head\n"), method: "GET", minorVersion: 1, keepAlive: false)
            }
            head = parsed
        }
        let request = core.record(head, connection: ordinal)
        defer { core.answered() }
        if head.hasTransferCoding {
            // Nothing under test uploads chunked bodies; refusing and closing is simpler than decoding them.
            return try deliver(.text(501, "chunked request bodies are not supported\n"), method: head.method, minorVersion: head.minorVersion, keepAlive: false)
        }
        if case .length(let length) = head.contentLength, length > 0 {
            // libcurl waits (1 s) for this before sending a large POST body.
            if head.expectsContinue {
                try socket.send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
            guard try discardBody(length) else { return false }
        }
        let response = core.route(for: request.path)?.response(to: request)
            ?? .text(404, "no route for \(request.path)\n")
        return try deliver(response, method: head.method, minorVersion: head.minorVersion, keepAlive: head.wantsKeepAlive)
    }

    private enum HeadRead {
        case head([UInt8])
        case tooLarge
        case closed
    }

    private mutating func readHead() throws -> HeadRead {
        while true {
            // RFC 9112 §2.2: a server should ignore empty lines received before the request line.
            while pending.starts(with: [13, 10]) {
                pending.removeFirst(2)
            }
            if let end = pending.firstRange(of: Self.headTerminator) {
                guard end.lowerBound <= Self.headLimit else { return .tooLarge }
                let head = Array(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                return .head(head)
            }
            if pending.count > Self.headLimit { return .tooLarge }
            guard try receiveMore() else { return .closed }
        }
    }

    /// Reads and drops a request body so the next request on the connection starts at the right byte; false if the client left.
    private mutating func discardBody(_ length: Int) throws -> Bool {
        var remaining = length
        while true {
            let taken = min(remaining, pending.count)
            pending.removeFirst(taken)
            remaining -= taken
            if remaining == 0 { return true }
            guard try receiveMore() else { return false }
        }
    }

    /// Appends what the socket has to `pending`; false at end of stream.
    private mutating func receiveMore() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = try chunk.withUnsafeMutableBytes { try socket.receive(into: $0) }
        guard count > 0 else { return false }
        pending += chunk[..<count]
        return true
    }

    /// Sends a response as its delivery says; true when the connection may carry another request.
    private func deliver(_ response: ServerResponse, method: String, minorVersion: Int, keepAlive: Bool) throws -> Bool {
        if case .raw(let write) = response {
            try write(RawResponseWriter(socket: socket))
            return false
        }
        guard case .message(let head, var body, let delivery) = response else {
            socket.discardUntilClosed()
            return false
        }
        if minorVersion == 0, case .chunks(let chunks) = body {
            // HTTP/1.0 has no chunked coding; an HTTP/1.0 client gets the same bytes with a Content-Length.
            body = .bytes(Array(chunks.joined())[...])
        }
        let closing = !keepAlive || head.asksToClose
        let wire = method == "HEAD" || head.isBodiless ? [][...] : body.wireBytes
        try socket.send(head.serialized(body: body, closing: closing))
        switch delivery {
        case .complete:
            try socket.send(wire)
        case .paced(let chunkSize, let interval):
            var offset = wire.startIndex
            while offset < wire.endIndex {
                if offset > wire.startIndex, socket.waitForHangUp(upTo: interval) { return false }
                let end = min(offset + chunkSize, wire.endIndex)
                try socket.send(wire[offset..<end])
                offset = end
            }
        case .stall(let afterBytes):
            try socket.send(wire.prefix(max(0, afterBytes)))
            socket.discardUntilClosed()
            return false
        case .cut(let afterBytes):
            try socket.send(wire.prefix(max(0, afterBytes)))
            socket.shutdownWriting()
            return false
        }
        return !closing
    }
}
