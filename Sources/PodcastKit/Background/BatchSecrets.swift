import FoundationEssentials
import Glibc
import PodcastHTTP
import PodcastPlatform

/// The secrets a background batch or update needs, kept out of the state store: its `--header`
/// values (API keys, session cookies), its proxy (which may carry a password) and the
/// `user:password@` of a feed address given for the run (`URLCredentials`). The store is
/// read by `status`, copied into bug reports and kept for ever; these are one owner-only file in
/// `<home>/secrets`, written before the work is queued and removed once it has settled.
public struct BatchSecrets {
    /// What the file holds.
    public struct Contents: Codable, Equatable, Sendable {
        /// The `--header` fields, `Name: value`.
        public var headers: [String]
        /// The proxy's URL, credentials included; nil for none.
        public var proxy: String?
        /// The feed addresses' credentials; nil (a file from before they were kept here) for none.
        public var credentials: URLCredentials?

        /// The secrets of `settings`; nil when it has none.
        public init?(of settings: Settings) {
            guard !settings.http.headers.isEmpty || settings.http.proxy != nil || !settings.http.credentials.isEmpty else { return nil }
            headers = settings.http.headers.fields
            proxy = settings.http.proxy
            credentials = settings.http.credentials.isEmpty ? nil : settings.http.credentials
        }
    }

    let directory: String

    /// The secret files of the home at `paths`.
    public init(paths: PodcastPaths) {
        directory = paths.home + "/secrets"
    }

    /// Writes `contents` to a new owner-only file and returns its name, for `QueuedSettings`.
    public func save(_ contents: Contents) throws(SystemError) -> String {
        try FileIO.makeDirectory(directory, mode: 0o700)
        let name = UUID().uuidString + ".json"
        let writer = try AtomicFileWriter(destination: path(name))
        // Strings always encode.
        let data = (try? JSONEncoder().encode(contents)) ?? Data("{}".utf8)
        data.withUnsafeBytes { writer.write($0) }
        try writer.commit()
        return name
    }

    /// The secrets in the file `name`.
    public func load(_ name: String) throws(SystemError) -> Contents {
        let path = path(name)
        var bytes: [UInt8] = []
        try FileIO.read(path) { piece in
            bytes.append(contentsOf: piece)
            return bytes.count <= 1024 * 1024
        }
        guard let contents = try? JSONDecoder().decode(Contents.self, from: Data(bytes)) else {
            throw SystemError(call: "read", path: path, code: EINVAL)
        }
        return contents
    }

    /// Removes the file `name`; one already gone is no error.
    public func remove(_ name: String) throws(SystemError) {
        let path = path(name)
        // Ownership: a secrets file podcast wrote in its own home, for work that has settled.
        guard unlink(path) == 0 || errno == ENOENT else { throw .last("unlink", path: path) }
    }

    /// Only a name this type made is used (`<UUID>.json`): never a path a store record could
    /// point elsewhere with (no `/`, no leading dot).
    private func path(_ name: String) -> String {
        directory + "/" + name.filter { $0.isASCII && ($0.isLetter || $0.isNumber) || $0 == "-" || $0 == "." }.drop { $0 == "." }
    }
}
