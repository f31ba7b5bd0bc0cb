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

    /// Starts nginx and waits (boundedly) until it listens; `limitRate` (bytes per second, per
    /// connection, nginx's `limit_rate`) slows every answer so a test can interrupt it.
    /// With `certificate` it speaks https only. `directives` go into its `server` block as they
    /// are (`location = /a { return 302 http://…; }`).
    public init(limitRate: Int? = nil, certificate: SelfSignedCertificate? = nil, directives: String = "") async throws {
        root = try TemporaryDirectory(prefix: "nginx-root")
        prefix = try TemporaryDirectory(prefix: "nginx-prefix")
        let user = geteuid() == 0 ? "user root;" : ""
        let root = self.root
        let prefix = self.prefix
        let configuration = { (port: Int) in
            """
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
        }
        isSecure = certificate != nil
        (process, port) = try await Self.start(prefix: prefix, configuration: configuration)
    }

    /// nginx's process id.
    public var processIdentifier: Int32 { process.pid }

    /// Starts nginx on a freshly reserved port and waits until that very process listens there.
    ///
    /// The port is reserved, freed and handed to nginx, so under a loaded test run another test's
    /// server can take it first: nginx then fails to bind and exits, while something else accepts
    /// on the port. So readiness is "this process holds a listening socket on this port", never
    /// "something accepts". An nginx that exits, or that does not listen in time (seen under a
    /// fully loaded run, with nothing in its log), is killed and replaced on a new port, up to
    /// three times.
    private static func start(
        prefix: TemporaryDirectory, configuration: (Int) -> String
    ) async throws -> (ChildProcess, port: Int) {
        var failures: [String] = []
        for _ in 1...3 {
            // Freed at once: nginx must bind it (a tiny window in which another test could take it).
            let port = try RefusingPort().port
            try configuration(port).write(toFile: prefix.path("nginx.conf"), atomically: true, encoding: .utf8)
            // Each attempt's failure report carries only its own log.
            try? FileManager.default.removeItem(atPath: prefix.path("error.log"))
            let process = try ChildProcess(URL(filePath: executable), ["-p", prefix.path, "-c", prefix.path("nginx.conf"), "-e", prefix.path("error.log")])
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, process.isRunning {
                if listens(pid: process.pid, port: port), process.isRunning { return (process, port) }
                try await Task.sleep(for: .milliseconds(20))
            }
            let log = (try? String(contentsOfFile: prefix.path("error.log"), encoding: .utf8)) ?? ""
            kill(process.pid, SIGKILL)
            let output = await process.finish(within: .seconds(5))
            failures.append("port \(port), status \(output.status): \(log) \(output.stderr)")
        }
        throw NginxError(message: "nginx did not start: " + failures.joined(separator: "; "))
    }

    /// True when process `pid` holds a socket listening on 127.0.0.1:`port`: a LISTEN entry for
    /// that address in /proc/net/tcp whose inode is one of the process' descriptors. Another
    /// process' listener on the same port does not count.
    public static func listens(pid: Int32, port: Int) -> Bool {
        let inodes = listeningSocketInodes(port: port)
        guard !inodes.isEmpty,
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return false }
        return descriptors.contains { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                target.hasPrefix("socket:["), target.hasSuffix("]")
            else { return false }
            return inodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
        }
    }

    /// The inodes of the sockets listening on 127.0.0.1:`port`, from /proc/net/tcp (this network
    /// namespace's IPv4 TCP sockets).
    private static func listeningSocketInodes(port: Int) -> Set<String> {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return [] }
        // The kernel prints the address as the 32-bit word it stores (network order) read natively,
        // and the port in host order.
        let address = String(UInt32(0x7F00_0001).bigEndian, radix: 16, uppercase: true)
        let local = String(repeating: "0", count: 8 - address.count) + address + ":"
            + String(format: "%04X", port)
        let listening = "0A"
        var inodes: Set<String> = []
        // Columns: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
        for line in table.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count > 9, columns[1] == local, columns[3] == listening else { continue }
            inodes.insert(String(columns[9]))
        }
        return inodes
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
}

/// nginx could not be started.
public struct NginxError: Error, CustomStringConvertible {
    /// What went wrong, with nginx's log.
    public var message: String
    /// The message.
    public var description: String { message }
}
