import Foundation
import Glibc
import PodcastTestSupport
import Testing

@Suite(.timeLimit(.minutes(5))) struct LoopbackServerTests {
    // MARK: Plain responses

    @Test func fixedRouteSendsBodyWithContentLength() throws {
        let server = try LoopbackServer(routes: ["/hello": .fixed(body: Data("hello, world".utf8), headers: [("Content-Type", "text/plain")])])
        let client = try RawClient(port: server.port)
        try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "12")
        #expect(response.headers["content-type"] == "text/plain")
        #expect(response.text == "hello, world")
    }

    @Test func chunkedRouteFramesEachChunkAndEndsWithLastChunk() throws {
        let server = try LoopbackServer(routes: ["/c": .chunked(chunks: [Data("hello".utf8), Data(), Data(" chunked world".utf8)])])
        let client = try RawClient(port: server.port)
        try client.send("GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try client.readResponseUntilClose()
        #expect(response.headers["transfer-encoding"] == "chunked")
        #expect(response.headers["content-length"] == nil)
        #expect(response.text == "5\r\nhello\r\ne\r\n chunked world\r\n0\r\n\r\n")
    }

    @Test(.enabled(if: Curl.isAvailable)) func chunkedRouteDecodesWithCurl() throws {
        let chunks = (0..<5).map { Data(repeating: UInt8(65 + $0), count: 1000 * ($0 + 1)) }
        let server = try LoopbackServer(routes: ["/c": .chunked(chunks: chunks)])
        let result = try Curl.run([server.url("/c")])
        #expect(result.exitCode == 0)
        #expect(result.output == chunks.reduce(Data(), +))
    }

    @Test func redirectSendsLocationAndEmptyBody() throws {
        let server = try LoopbackServer(routes: ["/old": .redirect(to: "/new", status: 301)])
        let client = try RawClient(port: server.port)
        try client.send("GET /old HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 301)
        #expect(response.headers["location"] == "/new")
        #expect(response.headers["content-length"] == "0")
        #expect(response.body.isEmpty)
    }

    @Test func unknownPathIsNotFound() throws {
        let server = try LoopbackServer(routes: ["/known": .fixed(body: Data("x".utf8))])
        let client = try RawClient(port: server.port)
        try client.send("GET /unknown?known HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 404)
        #expect(response.text.contains("/unknown"))
    }

    @Test func statusRouteSendsRetryAfter() throws {
        let server = try LoopbackServer(routes: ["/busy": .status(429, headers: [("Retry-After", "7")])])
        let client = try RawClient(port: server.port)
        try client.send("GET /busy HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 429)
        #expect(response.headers["retry-after"] == "7")
        #expect(response.text == "429 Too Many Requests\n")
    }

    @Test func slowRouteDeliversWholeBodyInPieces() throws {
        let body = TestBytes.pattern(count: 10_000)
        let server = try LoopbackServer(routes: ["/slow": .slow(body: body, chunkSize: 2_500, interval: .milliseconds(5))])
        let client = try RawClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.headers["content-length"] == "10000")
        #expect(response.body == body)
    }

    // MARK: Files and ranges

    @Test func fileRangeFromOffsetIsPartialContent() throws {
        let body = TestBytes.pattern(count: 1000)
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: body, contentType: "audio/mpeg", etag: "\"v1\"")])
        let response = try RawClient.get(server, "/ep.mp3", headers: ["Range: bytes=400-"])
        #expect(response.status == 206)
        #expect(response.headers["content-range"] == "bytes 400-999/1000")
        #expect(response.headers["content-length"] == "600")
        #expect(response.headers["accept-ranges"] == "bytes")
        #expect(response.headers["etag"] == "\"v1\"")
        #expect(response.body == body.subdata(in: 400..<1000))
    }

    @Test func fileRangeBetweenOffsetsIsPartialContent() throws {
        let body = TestBytes.pattern(count: 1000)
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: body)])
        let response = try RawClient.get(server, "/ep.mp3", headers: ["Range: bytes=10-19"])
        #expect(response.status == 206)
        #expect(response.headers["content-range"] == "bytes 10-19/1000")
        #expect(response.body == body.subdata(in: 10..<20))
    }

    @Test func fileSuffixRangeSendsLastBytes() throws {
        let body = TestBytes.pattern(count: 1000)
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: body)])
        let response = try RawClient.get(server, "/ep.mp3", headers: ["Range: bytes=-100"])
        #expect(response.status == 206)
        #expect(response.headers["content-range"] == "bytes 900-999/1000")
        #expect(response.body == body.subdata(in: 900..<1000))
    }

    @Test func fileRangeStartingAtLengthIsUnsatisfiable() throws {
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: TestBytes.pattern(count: 1000))])
        let response = try RawClient.get(server, "/ep.mp3", headers: ["Range: bytes=1000-"])
        #expect(response.status == 416)
        #expect(response.headers["content-range"] == "bytes */1000")
    }

    @Test func fileIfRangeWithOtherETagSendsFullBody() throws {
        let body = TestBytes.pattern(count: 1000)
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: body, etag: "\"v2\"")])
        let response = try RawClient.get(server, "/ep.mp3", headers: ["Range: bytes=400-", "If-Range: \"v1\""])
        #expect(response.status == 200)
        #expect(response.headers["content-range"] == nil)
        #expect(response.body == body)
    }

    @Test func fileIfRangeWithCurrentETagHonoursRange() throws {
        let body = TestBytes.pattern(count: 1000)
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: body, etag: "\"v1\"")])
        let response = try RawClient.get(server, "/ep.mp3", headers: ["Range: bytes=400-", "If-Range: \"v1\""])
        #expect(response.status == 206)
        #expect(response.body == body.subdata(in: 400..<1000))
    }

    @Test func fileIfRangeWithOtherDateSendsFullBody() throws {
        let body = TestBytes.pattern(count: 1000)
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: body, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")])
        let response = try RawClient.get(
            server, "/ep.mp3", headers: ["Range: bytes=400-", "If-Range: Tue, 20 Oct 2015 07:28:00 GMT"]
        )
        #expect(response.status == 200)
        #expect(response.headers["last-modified"] == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(response.body == body)
    }

    @Test func fileMultipleRangesSendFullBody() throws {
        let body = TestBytes.pattern(count: 1000)
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: body)])
        let response = try RawClient.get(server, "/ep.mp3", headers: ["Range: bytes=0-9,20-29"])
        #expect(response.status == 200)
        #expect(response.body == body)
    }

    @Test func fileHeadSendsHeadersWithoutBody() throws {
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: TestBytes.pattern(count: 1000), etag: "\"v1\"")])
        let client = try RawClient(port: server.port)
        try client.send("HEAD /ep.mp3 HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(expectingBody: false)
        // A body sent after a HEAD answer would be read as the start of the next response.
        try client.send("GET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
        let next = try client.readResponse()
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "1000")
        #expect(head.headers["etag"] == "\"v1\"")
        #expect(next.status == 404)
    }

    @Test func fileReplacedWhileRunningServesNewBody() throws {
        let server = try LoopbackServer(routes: ["/ep.mp3": .file(body: Data("old".utf8), etag: "\"v1\"")])
        server.setRoute("/ep.mp3", .file(body: Data("brand new".utf8), etag: "\"v2\""))
        let response = try RawClient.get(server, "/ep.mp3", headers: ["Range: bytes=1-", "If-Range: \"v1\""])
        #expect(response.status == 200)
        #expect(response.headers["etag"] == "\"v2\"")
        #expect(response.text == "brand new")
    }

    // MARK: Gzip

    @Test(.enabled(if: Gunzip.isAvailable)) func gzipBodyDecodesWithGzipTool() throws {
        // Over 65,535 bytes so the deflate stream needs several stored blocks.
        let body = TestBytes.pattern(count: 200_000)
        let server = try LoopbackServer(routes: ["/feed": .gzip(body: body, contentType: "application/rss+xml")])
        let response = try RawClient.get(server, "/feed", headers: ["Accept-Encoding: deflate, gzip"])
        #expect(response.headers["content-encoding"] == "gzip")
        #expect(try Gunzip.decode(response.body) == body)
    }

    @Test(.enabled(if: Gunzip.isAvailable)) func gzipEmptyBodyDecodesWithGzipTool() throws {
        let server = try LoopbackServer(routes: ["/feed": .gzip(body: Data())])
        let response = try RawClient.get(server, "/feed", headers: ["Accept-Encoding: gzip"])
        #expect(response.headers["content-encoding"] == "gzip")
        #expect(try Gunzip.decode(response.body) == Data())
    }

    @Test func gzipWithoutAcceptEncodingSendsPlainBody() throws {
        let body = Data("<rss/>".utf8)
        let server = try LoopbackServer(routes: ["/feed": .gzip(body: body)])
        let response = try RawClient.get(server, "/feed", headers: ["Accept-Encoding: gzip;q=0, identity"])
        #expect(response.headers["content-encoding"] == nil)
        #expect(response.body == body)
    }

    @Test(.enabled(if: Curl.isAvailable)) func gzipBodyDecodesWithCurl() throws {
        let body = TestBytes.pattern(count: 150_000)
        let server = try LoopbackServer(routes: ["/feed": .gzip(body: body)])
        let result = try Curl.run(["--compressed", server.url("/feed")])
        #expect(result.exitCode == 0)
        #expect(result.output == body)
    }

    // MARK: Faults

    @Test func cutDeliversExactlyTheFirstBytesThenCloses() throws {
        let body = TestBytes.pattern(count: 1000)
        let server = try LoopbackServer(routes: ["/ep.mp3": .cut(afterBytes: 300, body: body)])
        let client = try RawClient(port: server.port)
        try client.send("GET /ep.mp3 HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponseUntilClose()
        #expect(response.headers["content-length"] == "1000")
        #expect(response.body == body.subdata(in: 0..<300))
    }

    @Test(.enabled(if: Curl.isAvailable)) func cutMakesCurlReportPartialFile() throws {
        let server = try LoopbackServer(routes: ["/ep.mp3": .cut(afterBytes: 300, body: TestBytes.pattern(count: 1000))])
        let result = try Curl.run([server.url("/ep.mp3")])
        #expect(result.exitCode == 18)
        #expect(result.output.count == 300)
    }

    @Test func stallSendsOnlyTheFirstBytes() throws {
        let body = TestBytes.pattern(count: 1000)
        let server = try LoopbackServer(routes: ["/ep.mp3": .stall(afterBytes: 100, body: body)])
        let client = try RawClient(port: server.port)
        try client.send("GET /ep.mp3 HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(expectingBody: false)
        let first = try client.read(count: 100)
        #expect(head.headers["content-length"] == "1000")
        #expect(first == body.subdata(in: 0..<100))
        // Silence can only be shown by waiting: a short, bounded window.
        #expect(throws: RawClient.Failure.timedOut) { try client.receive(timeout: .milliseconds(200)) }
    }

    @Test func stopEndsStalledConnectionPromptly() throws {
        let server = try LoopbackServer(routes: ["/ep.mp3": .stall(afterBytes: 0, body: TestBytes.pattern(count: 1000))])
        let client = try RawClient(port: server.port)
        try client.send("GET /ep.mp3 HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readResponse(expectingBody: false)
        let clock = ContinuousClock()
        let stopped = clock.now
        server.stop()
        #expect(try client.receive().isEmpty)
        #expect(stopped.duration(to: clock.now) < .seconds(2))
    }

    @Test func noResponseSendsNothingUntilStopped() throws {
        let server = try LoopbackServer(routes: ["/api": .noResponse])
        let client = try RawClient(port: server.port)
        try client.send("GET /api HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(throws: RawClient.Failure.timedOut) { try client.receive(timeout: .milliseconds(200)) }
        server.stop()
        #expect(try client.receive().isEmpty)
    }

    @Test func stoppedServerRefusesConnections() throws {
        let server = try LoopbackServer()
        server.stop()
        server.stop()
        #expect(throws: RawClient.Failure.self) { _ = try RawClient(port: server.port) }
    }

    // MARK: Requests and connections

    @Test func requestsAreRecordedWithQueryString() throws {
        let server = try LoopbackServer(routes: ["/search": .fixed(body: Data("{}".utf8))])
        _ = try RawClient.get(server, "/search?term=foo&media=podcast", headers: ["User-Agent: podcast-test"])
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.target == "/search?term=foo&media=podcast")
        #expect(request.path == "/search")
        #expect(request.query == "term=foo&media=podcast")
        #expect(request.headers["user-agent"] == "podcast-test")
        #expect(request.index == 0)
    }

    @Test func requestCountIgnoresQueryString() throws {
        let server = try LoopbackServer(routes: ["/search": .fixed(body: Data())])
        _ = try RawClient.get(server, "/search?term=a")
        _ = try RawClient.get(server, "/search?term=b")
        _ = try RawClient.get(server, "/other")
        #expect(server.requestCount(path: "/search") == 2)
    }

    @Test func keepAliveAnswersTwoRequestsOnOneConnection() throws {
        let server = try LoopbackServer(routes: ["/a": .fixed(body: Data("first".utf8)), "/b": .fixed(body: Data("second".utf8))])
        let client = try RawClient(port: server.port)
        try client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse()
        try client.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try client.readResponse()
        #expect(first.text == "first")
        #expect(second.text == "second")
        #expect(server.requests.map(\.connection) == [0, 0])
    }

    @Test func requestBodyIsSkippedBeforeNextRequest() throws {
        let server = try LoopbackServer(routes: ["/a": .fixed(body: Data("ok".utf8))])
        let client = try RawClient(port: server.port)
        try client.send("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello worldGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse()
        let second = try client.readResponse()
        #expect(first.text == "ok")
        #expect(second.text == "ok")
        #expect(server.requests.map(\.method) == ["POST", "GET"])
    }

    @Test func clientConnectionCloseEndsConnectionAfterResponse() throws {
        let server = try LoopbackServer(routes: ["/a": .fixed(body: Data("ok".utf8))])
        let client = try RawClient(port: server.port)
        try client.send("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.headers["connection"] == "close")
        #expect(try client.receive().isEmpty)
    }

    @Test(.enabled(if: Curl.isAvailable)) func curlReusesConnectionForSecondRequest() throws {
        let server = try LoopbackServer(routes: ["/a": .fixed(body: Data("a".utf8)), "/b": .chunked(chunks: [Data("b".utf8)])])
        let result = try Curl.run([server.url("/a"), server.url("/b"), server.url("/a")])
        #expect(result.exitCode == 0)
        #expect(result.output == Data("aba".utf8))
        #expect(Set(server.requests.map(\.connection)).count == 1)
    }

    @Test func oversizedRequestHeadGets431() throws {
        let server = try LoopbackServer()
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nX-Filler: " + String(repeating: "a", count: 70_000) + "\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 431)
    }

    @Test func malformedRequestLineGets400() throws {
        let server = try LoopbackServer()
        let client = try RawClient(port: server.port)
        try client.send("NONSENSE\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 400)
    }

    // MARK: Computed routes

    @Test func handlerAnswersFromTheRequest() throws {
        let server = try LoopbackServer(routes: ["/echo": .handler { request in .fixed(body: Data((request.query ?? "").utf8)) }])
        let response = try RawClient.get(server, "/echo?term=foo")
        #expect(response.text == "term=foo")
    }

    @Test func sequenceAnswersInOrderThenRepeatsLast() throws {
        let server = try LoopbackServer(routes: [
            "/flaky": .sequence([.status(503), .fixed(body: Data("ok".utf8))]),
        ])
        let statuses = try (0..<3).map { _ in try RawClient.get(server, "/flaky").status }
        #expect(statuses == [503, 200, 200])
    }
}

// MARK: - Test clients

/// A blocking TCP client whose every read gives up after a timeout, so no test can hang on the server.
final class RawClient {
    /// Why the client gave up.
    enum Failure: Error, Equatable {
        case system(String, Int32)
        case timedOut
        case closedEarly
        case malformed(String)
    }

    /// A response as read off the wire; header names lowercased.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let descriptor: Int32
    private var pending: [UInt8] = []
    private let timeout: Duration

    /// Connects to 127.0.0.1:`port`.
    init(port: Int, timeout: Duration = .seconds(5)) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.system("socket", errno) }
        self.descriptor = descriptor
        self.timeout = timeout
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure.system("connect", errno) }
        try setTimeout(SO_SNDTIMEO, timeout)
    }

    deinit { close(descriptor) }

    /// One GET on a fresh connection.
    static func get(_ server: LoopbackServer, _ target: String, headers: [String] = []) throws -> Response {
        let client = try RawClient(port: server.port)
        let extra = headers.map { $0 + "\r\n" }.joined()
        try client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)\r\n")
        return try client.readResponse()
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure.system("send", errno) }
            offset += sent
        }
    }

    /// What arrives next (buffered bytes first); empty at end of stream.
    @discardableResult
    func receive(timeout: Duration? = nil) throws -> [UInt8] {
        if !pending.isEmpty {
            defer { pending = [] }
            return pending
        }
        try setTimeout(SO_RCVTIMEO, timeout ?? self.timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return Array(buffer[..<count]) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure.timedOut }
            throw Failure.system("recv", errno)
        }
    }

    /// Exactly `count` bytes.
    func read(count: Int) throws -> Data {
        while pending.count < count {
            let more = try receiveIntoPending()
            guard more else { throw Failure.closedEarly }
        }
        defer { pending.removeFirst(count) }
        return Data(pending[..<count])
    }

    /// A status line and header fields; then the body by Content-Length when `expectingBody`.
    func readResponse(expectingBody: Bool = true) throws -> Response {
        let terminator = Array("\r\n\r\n".utf8)
        while pending.firstRange(of: terminator) == nil {
            guard try receiveIntoPending() else { throw Failure.closedEarly }
        }
        guard let end = pending.firstRange(of: terminator) else { throw Failure.closedEarly }
        let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
        pending.removeSubrange(..<end.upperBound)
        var response = try Self.parse(head: head)
        if expectingBody, let length = Int(response.headers["content-length"] ?? "") {
            response.body = try read(count: length)
        }
        return response
    }

    /// The head, then everything up to end of stream as the body, framing bytes included.
    func readResponseUntilClose() throws -> Response {
        var response = try readResponse(expectingBody: false)
        while try receiveIntoPending() {}
        response.body = Data(pending)
        pending = []
        return response
    }

    private func receiveIntoPending() throws -> Bool {
        try setTimeout(SO_RCVTIMEO, timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                pending += buffer[..<count]
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure.timedOut }
            throw Failure.system("recv", errno)
        }
    }

    private func setTimeout(_ option: Int32, _ duration: Duration) throws {
        let (seconds, attoseconds) = duration.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        guard setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw Failure.system("setsockopt", errno)
        }
    }

    private static func parse(head: String) throws -> Response {
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else {
            throw Failure.malformed(lines[0])
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Failure.malformed(line) }
            let name = line[..<colon].lowercased()
            #expect(headers[name] == nil, "header \(name) sent twice")
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Data())
    }
}

/// The system curl, an independent and strict HTTP client.
enum Curl {
    static let path = "/usr/bin/curl"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs curl quietly with a time limit and no proxy; the body arrives on stdout.
    static func run(_ arguments: [String]) throws -> (exitCode: Int32, output: Data) {
        try runTool(path, ["--silent", "--max-time", "10", "--noproxy", "*"] + arguments)
    }
}

/// The system gzip, to check the server's encoder against a decoder it did not write.
enum Gunzip {
    static let path = "/usr/bin/gzip"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The decompressed bytes of a gzip stream, via `gzip -dc` on a temporary file.
    static func decode(_ data: Data) throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-\(UUID().uuidString).gz")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runTool(path, ["-dc", file.path])
        guard result.exitCode == 0 else { throw RawClient.Failure.malformed("gzip exited \(result.exitCode)") }
        return result.output
    }
}

/// Runs a tool to completion, returning its exit status and standard output.
private func runTool(_ path: String, _ arguments: [String]) throws -> (exitCode: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Read before waiting: a full pipe would block the tool and the wait forever.
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
}

/// Deterministic, non-repeating-looking bytes, so an offset error cannot go unnoticed.
enum TestBytes {
    static func pattern(count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
    }
}
