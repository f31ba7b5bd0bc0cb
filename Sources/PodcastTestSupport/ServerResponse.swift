import PodcastHTTP
import PodcastKit

/// What a connection sends for one request, decided before the first byte goes out.
enum ServerResponse {
    /// Send nothing at all and keep the connection open until the client or `stop()` ends it.
    case silent
    /// Send a status line, fields and body, paced or broken off as `delivery` says.
    case message(ResponseHead, ResponseBody, ResponseDelivery)
    /// Let the route write the bytes itself (status line and framing included), then close.
    case raw((RawResponseWriter) throws -> Void)

    /// A complete response with a short text body, for the server's own answers (404, 400, 431 …).
    static func text(_ status: Int, _ text: String, fields: [(String, String)] = []) -> ServerResponse {
        .message(
            ResponseHead(status: status, fields: [("Content-Type", "text/plain; charset=utf-8")] + fields),
            .bytes(Array(text.utf8)[...]),
            .complete
        )
    }
}

/// The status and route-supplied header fields of a response.
struct ResponseHead {
    /// The status code, such as 200 or 206.
    var status: Int
    /// Fields in the order they are sent; framing fields here are ignored because the body decides them.
    var fields: [(String, String)]

    /// Whether the route asked for the connection to be closed after this response.
    var asksToClose: Bool {
        fields.contains { $0.0.lowercased() == "connection" && $0.1.lowercased().contains("close") }
    }

    /// Whether the status forbids a body and a Content-Length (RFC 9110 §6.4.1).
    var isBodiless: Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    /// The bytes up to and including the blank line.
    func serialized(body: ResponseBody, closing: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\n"
        text += "Date: \(HTTPDate.now())\r\n"
        for (name, value) in fields where !Self.framingNames.contains(name.lowercased()) {
            text += "\(name): \(value)\r\n"
        }
        if !isBodiless {
            switch body {
            case .bytes(let bytes): text += "Content-Length: \(bytes.count)\r\n"
            case .chunks: text += "Transfer-Encoding: chunked\r\n"
            }
        }
        if closing { text += "Connection: close\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Fields the server writes itself; a route that set them would produce a second, conflicting copy.
    private static let framingNames: Set<String> = ["content-length", "transfer-encoding", "connection", "date"]
}

/// The body of a response and, with it, how its length is framed.
enum ResponseBody {
    /// A body framed by Content-Length.
    case bytes(ArraySlice<UInt8>)
    /// A body sent with chunked transfer coding, one chunk per element.
    case chunks([[UInt8]])

    /// The body as it travels on the wire, chunk framing included; a Content-Length body is not copied.
    var wireBytes: ArraySlice<UInt8> {
        switch self {
        case .bytes(let bytes):
            return bytes
        case .chunks(let chunks):
            var wire: [UInt8] = []
            // An empty chunk would read as the last-chunk marker and end the body early, so skip it.
            for chunk in chunks where !chunk.isEmpty {
                wire += Array("\(String(chunk.count, radix: 16))\r\n".utf8)
                wire += chunk
                wire += Array("\r\n".utf8)
            }
            wire += Array("0\r\n\r\n".utf8)
            return wire[...]
        }
    }
}

/// How the body leaves the server: the fault-injection knob.
enum ResponseDelivery: Equatable {
    /// All at once.
    case complete
    /// In pieces of `chunkSize` bytes with `interval` between them.
    case paced(chunkSize: Int, interval: Duration)
    /// The first `afterBytes` bytes, then silence with the connection held open.
    case stall(afterBytes: Int)
    /// The first `afterBytes` bytes, then the connection closes.
    case cut(afterBytes: Int)
}
