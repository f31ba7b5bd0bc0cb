import Foundation
import PodcastHTTP
import Synchronization
import PodcastKit

/// How the loopback server answers requests for one path: a plain body, a fault, a file with ranges, or code.
public struct ServerRoute: Sendable {
    enum Behaviour: Sendable {
        case content(status: Int, headers: [(String, String)], body: [UInt8], delivery: ResponseDelivery)
        case chunked(status: Int, headers: [(String, String)], chunks: [[UInt8]])
        case file(FileResource)
        case gzip(GzipResource)
        case noResponse
        case handler(@Sendable (RecordedRequest) -> ServerRoute)
        /// Writes the whole answer itself, framing included, then the connection closes.
        case raw(@Sendable (RecordedRequest, RawResponseWriter) throws -> Void)
    }

    let behaviour: Behaviour

    /// A complete response framed by Content-Length.
    public static func fixed(status: Int = 200, body: Data, headers: [(String, String)] = []) -> ServerRoute {
        ServerRoute(behaviour: .content(status: status, headers: headers, body: Array(body), delivery: .complete))
    }

    /// A response with chunked transfer coding, one chunk per element; empty elements are skipped so they cannot end the body early.
    public static func chunked(status: Int = 200, chunks: [Data], headers: [(String, String)] = []) -> ServerRoute {
        ServerRoute(behaviour: .chunked(status: status, headers: headers, chunks: chunks.map { Array($0) }))
    }

    /// A redirect to `location`, an absolute URL or a path, with an empty body.
    public static func redirect(to location: String, status: Int = 302, headers: [(String, String)] = []) -> ServerRoute {
        .fixed(status: status, body: Data(), headers: [("Location", location)] + headers)
    }

    /// An error or other bare status; the body defaults to the status line's text, e.g. `429 Too Many Requests`.
    public static func status(_ code: Int, body: Data? = nil, headers: [(String, String)] = []) -> ServerRoute {
        let text = Data("\(code) \(HTTPStatus.reasonPhrase(code))\n".utf8)
        let namesType = headers.contains { $0.0.lowercased() == "content-type" }
        let typeField = namesType ? [] : [("Content-Type", "text/plain; charset=utf-8")]
        return .fixed(status: code, body: body ?? text, headers: typeField + headers)
    }

    /// The full Content-Length up front, then the body in `chunkSize` pieces with `interval` between them.
    public static func slow(
        body: Data, chunkSize: Int, interval: Duration, headers: [(String, String)] = []
    ) -> ServerRoute {
        ServerRoute(behaviour: .content(
            status: 200, headers: headers, body: Array(body),
            delivery: .paced(chunkSize: max(1, chunkSize), interval: interval)
        ))
    }

    /// The full Content-Length and the first `afterBytes` bytes, then silence until the client gives up or the server stops.
    public static func stall(afterBytes: Int, body: Data, headers: [(String, String)] = []) -> ServerRoute {
        ServerRoute(behaviour: .content(status: 200, headers: headers, body: Array(body), delivery: .stall(afterBytes: afterBytes)))
    }

    /// The full Content-Length and the first `afterBytes` bytes, then the connection closes: the client sees a short body.
    public static func cut(afterBytes: Int, body: Data, headers: [(String, String)] = []) -> ServerRoute {
        ServerRoute(behaviour: .content(status: 200, headers: headers, body: Array(body), delivery: .cut(afterBytes: afterBytes)))
    }

    /// Reads the request and then sends nothing at all, not even a status line, until the client or `stop()` ends it.
    public static let noResponse = ServerRoute(behaviour: .noResponse)

    /// A static file with single-range support (206, 416, If-Range) and validators; replace it with `setRoute` to "change the file".
    public static func file(
        body: Data, contentType: String = "application/octet-stream", etag: String? = nil, lastModified: String? = nil
    ) -> ServerRoute {
        ServerRoute(behaviour: .file(FileResource(
            body: Array(body), contentType: contentType, etag: etag, lastModified: lastModified
        )))
    }

    /// The body gzip-encoded when the request's Accept-Encoding allows it, plain otherwise.
    public static func gzip(body: Data, contentType: String = "application/octet-stream") -> ServerRoute {
        ServerRoute(behaviour: .gzip(GzipResource(plain: Array(body), contentType: contentType)))
    }

    /// A route computed per request; `respond` runs on the connection's thread, once per request.
    public static func handler(_ respond: @escaping @Sendable (RecordedRequest) -> ServerRoute) -> ServerRoute {
        ServerRoute(behaviour: .handler(respond))
    }

    /// Answers the first request with the first route, the second with the second, and every later one with the last.
    public static func sequence(_ routes: [ServerRoute]) -> ServerRoute {
        guard let last = routes.last else { return .status(500, body: Data("empty route sequence\n".utf8)) }
        // The count lives with the route, not the server, so installing a fresh sequence starts over.
        let answered = RequestCounter()
        return .handler { _ in
            let position = answered.next()
            return position < routes.count ? routes[position] : last
        }
    }
}

/// A shared count of requests answered by one `sequence` route.
private final class RequestCounter: Sendable {
    private let count = Mutex(0)

    /// The number of earlier calls.
    func next() -> Int {
        count.withLock { count in
            defer { count += 1 }
            return count
        }
    }
}
