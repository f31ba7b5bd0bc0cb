import Foundation
import Glibc
import PodcastTestSupport
import Testing

/// The test nginx is ready only when its own process listens on its port: another server that
/// took the port first must not pass for it.
@Suite(.enabled(if: NginxServer.isAvailable, "nginx-light is installed by make setup"), .timeLimit(.minutes(5)))
struct NginxServerTests {
    @Test func anotherProcessListenerOnThePortIsNotNginxs() async throws {
        let nginx = try await NginxServer()
        // A plain listener in the test's own process, as another test's server would be.
        let other = try LoopbackServer()
        // /proc/net/tcp is made page by page as it is read: a socket opened or closed meanwhile by
        // another test can make one reading skip a line. A "yes" may take another reading; a "no"
        // cannot come from a skipped line being found.
        let nginxOnItsPort = try await Self.eventually { NginxServer.listens(pid: nginx.processIdentifier, port: nginx.port) }
        let nginxOnOtherPort = NginxServer.listens(pid: nginx.processIdentifier, port: other.port)
        let testOnOtherPort = try await Self.eventually { NginxServer.listens(pid: getpid(), port: other.port) }
        let testOnNginxPort = NginxServer.listens(pid: getpid(), port: nginx.port)
        other.stop()
        await nginx.stop()

        #expect(nginxOnItsPort)
        #expect(!nginxOnOtherPort)
        #expect(testOnOtherPort)
        #expect(!testOnNginxPort)
    }

    /// True once `check` is, within 30 s of readings: during a full parallel run /proc/net/tcp holds
    /// hundreds of sockets that come and go, and a loaded machine may take seconds to read it again.
    private static func eventually(_ check: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if check() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return check()
    }

    @Test func boundButNotListeningPortIsNotListening() throws {
        let reserved = try RefusingPort()
        #expect(!NginxServer.listens(pid: getpid(), port: reserved.port))
    }

    @Test func startedNginxServesAFile() async throws {
        let nginx = try await NginxServer()
        let body = TestBytes.pattern(count: 100_000)
        try nginx.serve(body, at: "/media/a.mp3")
        let client = try RawClient(port: nginx.port)
        try client.send("GET /media/a.mp3 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()
        // nginx logs an answer once it has ended, which may be just after the client has it all.
        let deadline = ContinuousClock.now + .seconds(30)
        while nginx.accessLog().isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let logged = nginx.accessLog()
        await nginx.stop()
        #expect(response.status == 200)
        #expect(response.body == body)
        #expect(logged.map(\.target) == ["/media/a.mp3"])
    }

    @Test(.enabled(if: Curl.isAvailable)) func startedSecureNginxServesAFile() async throws {
        let nginx = try await NginxServer(certificate: try await SelfSignedCertificate())
        let body = TestBytes.pattern(count: 10_000)
        try nginx.serve(body, at: "/a.bin")
        let result = try Curl.run(["--insecure", nginx.url("/a.bin")])
        await nginx.stop()
        #expect(nginx.url("/a.bin").hasPrefix("https://"))
        #expect(result.exitCode == 0)
        #expect(result.output == body)
    }
}
