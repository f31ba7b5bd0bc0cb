import Foundation

/// A certificate for 127.0.0.1, signed by itself, made with the `openssl` command for one test: the
/// https server presents it, and the client trusts it as its only authority (`ca-file`).
public struct SelfSignedCertificate: Sendable {
    /// The certificate, PEM: also the authority file a client trusts.
    public let certificate: String
    /// Its private key, PEM.
    public let key: String
    private let directory: TemporaryDirectory

    /// Makes a key and a certificate valid for a day, for IP 127.0.0.1.
    public init() async throws {
        directory = try TemporaryDirectory(prefix: "certificate")
        certificate = directory.path("certificate.pem")
        key = directory.path("key.pem")
        let openssl = try ChildProcess(URL(filePath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
        ])
        let result = await openssl.finish(within: .seconds(30))
        guard result.status == 0 else { throw NginxError(message: "openssl could not make a certificate: \(result.stderr)") }
    }
}
