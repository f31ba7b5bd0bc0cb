import Foundation
import CCurl
@testable import PodcastHTTP
@testable import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Testing

@Suite(.timeLimit(.minutes(5))) struct HTTPClientTests {
    private let client = HTTPClient(settings: HTTPSettings(stallTimeout: 1, maxRedirects: 3))

    @Test func followsRedirectsAndReportsWhereTheBodyCameFrom() throws {
        let server = try LoopbackServer(routes: [
            "/old": .redirect(to: "/moved", status: 301),
            "/moved": .redirect(to: "/final"),
            "/final": .fixed(body: Data("hello".utf8), headers: [("ETag", "\"v1\"")]),
        ])
        let response = try client.get(server.url("/old"))
        #expect(response.body == Array("hello".utf8))
        #expect(response.effectiveURL == server.url("/final"))
        #expect(response.redirectCount == 2)
        #expect(response.header("ETag") == "\"v1\"")
    }

    @Test func redirectLoopStopsAtTheLimit() throws {
        let server = try LoopbackServer(routes: ["/loop": .redirect(to: "/loop")])
        #expect {
            try client.get(server.url("/loop"))
        } throws: { ($0 as? HTTPError)?.kind == .tooManyRedirects }
        #expect(server.requestCount(path: "/loop") == 4)
    }

    @Test func redirectToAnotherSchemeIsRefused() throws {
        let server = try LoopbackServer(routes: ["/escape": .redirect(to: "file:///etc/passwd")])
        #expect {
            try client.get(server.url("/escape"))
        } throws: { ($0 as? HTTPError)?.kind == .unsupportedURL }
    }

    @Test func nonHTTPURLIsRefusedWithoutARequest() {
        #expect(throws: HTTPError.unsupportedURL("file:///etc/passwd")) {
            try client.get("file:///etc/passwd")
        }
    }

    @Test func sendsUserAgentAndAcceptsCompression() throws {
        let server = try LoopbackServer(routes: ["/": .fixed(body: Data("ok".utf8))])
        _ = try client.get(server.url("/"), headers: ["X-Extra: yes"])
        let request = try #require(server.requests.first)
        #expect(request.header("User-Agent") == "podcast/\(podcastVersion)")
        #expect(request.header("Accept-Encoding")?.contains("gzip") == true)
        #expect(request.header("X-Extra") == "yes")
    }

    @Test func gzipEncodedBodyArrivesDecoded() throws {
        let plain = Data((0..<5000).map { "line \($0)\n" }.joined().utf8)
        let server = try LoopbackServer(routes: ["/data.json": .gzip(body: plain, contentType: "application/json")])
        let response = try client.get(server.url("/data.json"))
        #expect(response.header("Content-Encoding") == "gzip")
        #expect(response.body == Array(plain))
    }

    @Test func chunkedBodyIsReassembled() throws {
        let server = try LoopbackServer(routes: [
            "/": .chunked(chunks: [Data("one ".utf8), Data("two ".utf8), Data("three".utf8)]),
        ])
        #expect(try client.get(server.url("/")).body == Array("one two three".utf8))
    }

    @Test func rateLimitSaysHowLongToWait() throws {
        let server = try LoopbackServer(routes: ["/": .status(429, headers: [("Retry-After", "30")])])
        let error = try #require(throws: HTTPError.self) { try client.get(server.url("/")) }
        #expect(error.kind == .status(429))
        #expect(error.retryAfter == 30)
        #expect(error.isTransient)
        #expect(error.description.contains("server answered 429 Too Many Requests"))
        #expect(error.description.contains("wait 30 s"))
    }

    @Test func forbiddenIsNotCalledRateLimiting() throws {
        let server = try LoopbackServer(routes: ["/": .status(403)])
        let error = try #require(throws: HTTPError.self) { try client.get(server.url("/")) }
        #expect(error.kind == .status(403))
        #expect(error.description.contains("may have expired"))
    }

    @Test func notFoundIsFinal() throws {
        let server = try LoopbackServer()
        let error = try #require(throws: HTTPError.self) { try client.get(server.url("/missing")) }
        #expect(error.kind == .status(404))
        #expect(!error.isTransient)
    }

    @Test func refusedConnectionIsReported() throws {
        let port = try RefusingPort()
        let error = try #require(throws: HTTPError.self) { try client.get(port.baseURL + "/") }
        #expect(error.kind == .cannotConnect)
        #expect(error.isTransient)
    }

    @Test func stalledBodyTimesOut() throws {
        let server = try LoopbackServer(routes: ["/": .stall(afterBytes: 10, body: Data(count: 10_000))])
        let error = try #require(throws: HTTPError.self) { try client.get(server.url("/")) }
        #expect(error.kind == .timedOut)
    }

    @Test func serverThatNeverAnswersTimesOut() throws {
        let server = try LoopbackServer(routes: ["/": .noResponse])
        let error = try #require(throws: HTTPError.self) { try client.get(server.url("/")) }
        #expect(error.kind == .timedOut)
    }

    @Test func connectionCutMidBodyIsAnError() throws {
        let server = try LoopbackServer(routes: ["/": .cut(afterBytes: 100, body: Data(count: 1000))])
        let error = try #require(throws: HTTPError.self) { try client.get(server.url("/")) }
        #expect(error.kind == .connectionLost)
    }

    @Test func bodyOverTheLimitIsRefused() throws {
        let server = try LoopbackServer(routes: ["/": .fixed(body: Data(count: 4096))])
        let error = try #require(throws: HTTPError.self) { try client.get(server.url("/"), maxBodyBytes: 1024) }
        #expect(error.kind == .bodyTooLarge(limit: 1024))
    }

    @Test func curlCodesMapToActionableKinds() {
        let settings = HTTPSettings()
        #expect(HTTPError.curl(CURLE_COULDNT_RESOLVE_HOST, url: "u", curlMessage: "", settings: settings).kind == .hostNotFound)
        #expect(HTTPError.curl(CURLE_PEER_FAILED_VERIFICATION, url: "u", curlMessage: "", settings: settings).kind == .tls)
        #expect(HTTPError.curl(CURLE_RECV_ERROR, url: "u", curlMessage: "", settings: settings).kind == .connectionLost)
    }
}
