import Foundation
import PodcastHTTP
import PodcastKit

/// The socket of one answer that a `raw` route writes itself, status line and framing included;
/// the connection closes when the route returns (or throws: the client hung up).
public struct RawResponseWriter {
    let socket: SocketDescriptor

    /// Sends `bytes`; throws once the client has gone.
    public func send(_ bytes: [UInt8]) throws {
        try socket.send(bytes)
    }

    /// Sends `text` as UTF-8.
    public func send(_ text: String) throws {
        try socket.send(Array(text.utf8))
    }

    /// Waits up to `interval`; true as soon as the client hangs up.
    public func waitForHangUp(upTo interval: Duration) -> Bool {
        socket.waitForHangUp(upTo: interval)
    }

    /// A status line, a Date, `fields` as given (framing too: nothing is added) and the blank line.
    public func sendHead(status: Int = 200, _ fields: [(String, String)]) throws {
        var text = "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\nDate: \(HTTPDate.now())\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        try send(text + "\r\n")
    }
}

/// Servers that break the rules on purpose: the hostile-server tests' routes.
extension ServerRoute {
    /// A route that writes its whole answer itself through `write`, framing included, and then
    /// closes the connection: for answers no well-behaved route can give.
    public static func raw(_ write: @escaping @Sendable (RecordedRequest, RawResponseWriter) throws -> Void) -> ServerRoute {
        ServerRoute(behaviour: .raw(write))
    }

    /// A static file like `file(body:…)` on a server that honours `Range` but ignores `If-Range`:
    /// a changed file is answered with a 206 of its new bytes and its new validators.
    public static func ignoringIfRange(
        body: Data, contentType: String = "audio/mpeg", etag: String? = nil, lastModified: String? = nil
    ) -> ServerRoute {
        let resource = FileResource(body: Array(body), contentType: contentType, etag: etag, lastModified: lastModified)
        return .handler { request in
            var headers = request.headers
            headers["if-range"] = nil
            let unconditional = RecordedRequest(
                index: request.index, connection: request.connection, method: request.method, target: request.target, headers: headers)
            guard case .message(let head, .bytes(let bytes), _) = resource.response(to: unconditional) else {
                return .status(500, body: Data("the file route gave no plain body\n".utf8))
            }
            return ServerRoute(behaviour: .content(status: head.status, headers: head.fields, body: Array(bytes), delivery: .complete))
        }
    }

    /// A 200 with `Transfer-Encoding: chunked` whose first chunk (`valid`) is well formed and whose
    /// next chunk-size line is `garbage` (not hexadecimal), whatever was asked; then the connection closes.
    public static func garbageChunked(valid: Data, garbage: String = "zz\r\n", headers: [(String, String)] = []) -> ServerRoute {
        let chunk = Array(valid)
        return .raw { _, writer in
            try writer.sendHead([("Content-Type", "audio/mpeg")] + headers + [("Transfer-Encoding", "chunked"), ("Connection", "close")])
            try writer.send("\(String(chunk.count, radix: 16))\r\n")
            try writer.send(chunk + Array("\r\n".utf8))
            try writer.send(garbage + String(repeating: "\u{1}", count: 512) + "\r\n")
        }
    }

    /// A 200 with neither Content-Length nor chunked coding, whose body (a repeated byte) goes on
    /// until the client hangs up or `limit` bytes have been sent; `served` counts what was sent.
    public static func endless(limit: Int, served: ServedBytes, headers: [(String, String)] = [("Content-Type", "audio/mpeg")]) -> ServerRoute {
        .raw { _, writer in
            try writer.sendHead(headers + [("Connection", "close")])
            let block = [UInt8](repeating: 0x55, count: 64 * 1024)
            var sent = 0
            while sent < limit {
                let piece = min(block.count, limit - sent)
                try writer.send(piece == block.count ? block : Array(block.prefix(piece)))
                sent += piece
                served.add(piece)
            }
        }
    }

    /// A 200 whose body is a gzip member of `decodedSize` zero bytes (about a thousandth of that
    /// on the wire), with `Content-Encoding: gzip` and `Content-Length` of the compressed bytes,
    /// whatever the request's Accept-Encoding said.
    public static func gzipBomb(decodedSize: Int, headers: [(String, String)] = [("Content-Type", "audio/mpeg")]) -> ServerRoute {
        .fixed(body: Data(GzipBomb.zeros(count: decodedSize)), headers: headers + [("Content-Encoding", "gzip")])
    }
}
