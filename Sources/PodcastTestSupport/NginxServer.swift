import Foundation

/// A real nginx on 127.0.0.1 serving the files of a temporary directory (with Range, ETag and
/// Last-Modified as nginx does them), for tests that must meet a production web server.
public final class NginxServer: Sendable {
    /// Where nginx is installed on Debian.
    public static let executable = "/usr/sbin/nginx"
    /// True when nginx can be run here.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// The directory served at `/`.
    public let root: TemporaryDirectory
    /// The port nginx listens on.
    public let port: Int
    private let process: ChildProcess
    private let prefix: TemporaryDirectory
    /// True when it speaks TLS (https) with a certificate the test made.
    public let isSecure: Bool

    /// Starts nginx and waits (boundedly) until it accepts connections; `limitRate` (bytes per
    /// second, per connection, nginx's `limit_rate`) slows every answer so a test can interrupt it.
    /// With `certificate` it speaks https only. `directives` go into its `server` block as they
    /// are (`location = /a { return 302 http://…; }`).
    public init(limitRate: Int? = nil, certificate: SelfSignedCertificate? = nil, directives: String = "") async throws {
        root = try TemporaryDirectory(prefix: "nginx-root")
        prefix = try TemporaryDirectory(prefix: "nginx-prefix")
        // Reserve a free port, then hand it to nginx (a tiny window in which another test could take it).
        port = try RefusingPort().port
        let user = geteuid() == 0 ? "user root;" : ""
        let configuration = """
            \(user)
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(prefix.path("nginx.pid"));
            error_log \(prefix.path("error.log")) warn;
            events { worker_connections 256; }
            http {
                # One line per answer: what was asked (Range, If-Range) and how many body bytes went out.
                log_format transfer '$status $body_bytes_sent $request_uri "$http_range" "$http_if_range"';
                access_log \(prefix.path("access.log")) transfer;
                # With limit_rate, nginx sends a whole sendfile_max_chunk (2 MiB by default) and then
                # waits; 16 KiB pieces make the pace smooth, so an interruption can land anywhere.
                \(limitRate.map { "limit_rate \($0); sendfile_max_chunk 16k;" } ?? "")
                client_body_temp_path \(prefix.path("body"));
                proxy_temp_path \(prefix.path("proxy"));
                sendfile on;
                default_type application/octet-stream;
                types { audio/mpeg mp3; application/rss+xml xml; }
                server {
                    listen 127.0.0.1:\(port)\(certificate == nil ? "" : " ssl");
                    \(certificate.map { "ssl_certificate \($0.certificate); ssl_certificate_key \($0.key);" } ?? "")
                    root \(root.path);
                    \(directives)
                }
            }
            """
        isSecure = certificate != nil
        try configuration.write(toFile: prefix.path("nginx.conf"), atomically: true, encoding: .utf8)
        process = try await Self.start(prefix: prefix, port: port)
    }

    /// Starts nginx and waits until it accepts connections. Under a fully loaded test run an nginx
    /// was seen never to start listening, with nothing in its log: such a one is killed and
    /// replaced, up to three times.
    private static func start(prefix: TemporaryDirectory, port: Int) async throws -> ChildProcess {
        var failures: [String] = []
        for _ in 1...3 {
            let process = try ChildProcess(URL(filePath: executable), ["-p", prefix.path, "-c", prefix.path("nginx.conf"), "-e", prefix.path("error.log")])
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if accepts(port: port) { return process }
                try await Task.sleep(for: .milliseconds(20))
            }
            let log = (try? String(contentsOfFile: prefix.path("error.log"), encoding: .utf8)) ?? ""
            kill(process.pid, SIGKILL)
            let output = await process.finish(within: .seconds(5))
            failures.append("status \(output.status): \(log) \(output.stderr)")
        }
        throw NginxError(message: "nginx did not start on port \(port): " + failures.joined(separator: "; "))
    }

    /// `http://127.0.0.1:PORT/path` (`https` when it speaks TLS).
    public func url(_ path: String) -> String {
        "\(isSecure ? "https" : "http")://127.0.0.1:\(port)" + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// Writes `data` to `path` under the served directory.
    public func serve(_ data: Data, at path: String) throws {
        let file = root.url.appending(path: path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    /// The answers nginx has logged so far, in the order they ended (an answer is logged when it
    /// ends, also when the client went away in the middle of it).
    public func accessLog() -> [NginxLogEntry] {
        let text = (try? String(contentsOfFile: prefix.path("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { NginxLogEntry(line: String($0)) }
    }

    /// Stops nginx and waits for it to exit. SIGKILL: it holds no state worth a graceful exit, and
    /// under a test runner's inherited signal mask it may not act on SIGTERM.
    public func stop() async {
        kill(process.pid, SIGKILL)
        _ = await process.finish(within: .seconds(10))
    }

    private static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// nginx could not be started.
public struct NginxError: Error, CustomStringConvertible {
    /// What went wrong, with nginx's log.
    public var message: String
    /// The message.
    public var description: String { message }
}
