import Foundation
import Synchronization

/// How a file route breaks off or slows the body of its answers: the knob of the resume tests.
public enum BodyFault: Sendable, Equatable {
    /// The whole body at once.
    case none
    /// The first `afterBytes` bytes of this answer's body, then the connection closes (a short body).
    case cut(afterBytes: Int)
    /// The first `afterBytes` bytes of this answer's body, then silence with the connection open.
    case stall(afterBytes: Int)
    /// The body in `chunkSize` pieces with `interval` between them.
    case paced(chunkSize: Int, interval: Duration)

    fileprivate var delivery: ResponseDelivery {
        switch self {
        case .none: .complete
        case .cut(let afterBytes): .cut(afterBytes: afterBytes)
        case .stall(let afterBytes): .stall(afterBytes: afterBytes)
        case .paced(let chunkSize, let interval): .paced(chunkSize: max(1, chunkSize), interval: interval)
        }
    }

    /// How many of `count` body bytes the server offers under this fault.
    fileprivate func offered(of count: Int) -> Int {
        switch self {
        case .none, .paced: count
        case .cut(let afterBytes), .stall(let afterBytes): min(max(0, afterBytes), count)
        }
    }
}

/// The body bytes a route has handed to its sockets, summed over every answer.
///
/// A paced answer counts whole even if the client hangs up early, so the sum is an upper bound.
public final class ServedBytes: Sendable {
    private let count = Mutex(0)

    /// A counter at zero.
    public init() {}

    /// Body bytes offered so far.
    public var total: Int { count.withLock { $0 } }

    func add(_ bytes: Int) {
        count.withLock { $0 += bytes }
    }
}

extension ServerRoute {
    /// A static file like `file(body:…)` (validators, single ranges, If-Range, 416), whose answers'
    /// bodies are broken off or paced as `fault` says; `served` (when given) counts the body bytes sent.
    public static func file(
        body: Data, contentType: String = "application/octet-stream", etag: String? = nil,
        lastModified: String? = nil, fault: BodyFault, served: ServedBytes? = nil
    ) -> ServerRoute {
        let resource = FileResource(body: Array(body), contentType: contentType, etag: etag, lastModified: lastModified)
        return .handler { request in
            faulted(resource.response(to: request), method: request.method, fault: fault, served: served)
        }
    }

    /// Media stored gzip-encoded next to its plain form, as a server with precompressed files
    /// serves it: to a client that accepts gzip, the encoded bytes with `Content-Encoding: gzip`,
    /// their own strong ETag `encodedETag`, and ranges over the encoded bytes; to any other
    /// client, the plain bytes with `etag`. Either answer's body is broken off as `fault` says.
    /// `ignoringAcceptEncoding` makes it a misconfigured server that sends gzip to everyone.
    public static func gzipFile(
        body: Data, contentType: String = "audio/mpeg", etag: String, encodedETag: String,
        ignoringAcceptEncoding: Bool = false, fault: BodyFault = .none
    ) -> ServerRoute {
        let plain = FileResource(body: Array(body), contentType: contentType, etag: etag, lastModified: nil)
        let encoded = FileResource(body: Gzip.encode(Array(body)), contentType: contentType, etag: encodedETag, lastModified: nil)
        return .handler { request in
            let accepted = ignoringAcceptEncoding || Gzip.isAccepted(by: request.header("Accept-Encoding"))
            var response = (accepted ? encoded : plain).response(to: request)
            if case .message(var head, let body, let delivery) = response {
                head.fields.append(("Vary", "Accept-Encoding"))
                if accepted, head.status == 200 || head.status == 206 {
                    head.fields.append(("Content-Encoding", "gzip"))
                }
                response = .message(head, body, delivery)
            }
            return faulted(response, method: request.method, fault: fault, served: nil)
        }
    }

    /// `response` as a route whose body leaves as `fault` says.
    private static func faulted(_ response: ServerResponse, method: String, fault: BodyFault, served: ServedBytes?) -> ServerRoute {
        guard case .message(let head, .bytes(let bytes), _) = response else {
            return .status(500, body: Data("the fault route expected a plain body\n".utf8))
        }
        if method != "HEAD", head.status == 200 || head.status == 206 {
            served?.add(fault.offered(of: bytes.count))
        }
        return ServerRoute(behaviour: .content(status: head.status, headers: head.fields, body: Array(bytes), delivery: fault.delivery))
    }
}
