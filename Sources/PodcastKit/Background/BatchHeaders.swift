import FoundationEssentials
import Glibc
import PodcastPlatform

/// The values of a background batch's `--header`s, kept out of the state store: they are often
/// secrets (API keys, session cookies), and the store is read by `status`, copied into bug
/// reports and kept for ever. Each batch's headers are one owner-only file in `<home>/headers`,
/// written before the batch is queued and removed once it has settled.
public struct BatchHeaders {
    let directory: String

    /// The header files of the home at `paths`.
    public init(paths: PodcastPaths) {
        directory = paths.home + "/headers"
    }

    /// Writes `fields` to a new owner-only file and returns its name, for `QueuedSettings`.
    public func save(_ fields: [String]) throws(SystemError) -> String {
        try FileIO.makeDirectory(directory, mode: 0o700)
        let name = UUID().uuidString + ".json"
        let writer = try AtomicFileWriter(destination: path(name))
        // Strings always encode.
        let data = (try? JSONEncoder().encode(fields)) ?? Data("[]".utf8)
        data.withUnsafeBytes { writer.write($0) }
        try writer.commit()
        return name
    }

    /// The header values in the file `name`.
    public func load(_ name: String) throws(SystemError) -> [String] {
        var bytes: [UInt8] = []
        try FileIO.read(path(name)) { piece in
            bytes.append(contentsOf: piece)
            return bytes.count <= 1024 * 1024
        }
        guard let fields = try? JSONDecoder().decode([String].self, from: Data(bytes)) else {
            throw SystemError(call: "read", path: path(name), code: EINVAL)
        }
        return fields
    }

    /// Removes the file `name`; one already gone is no error.
    public func remove(_ name: String) throws(SystemError) {
        // Ownership: a headers file podcast wrote in its own home, for a batch that has settled.
        guard unlink(path(name)) == 0 || errno == ENOENT else { throw .last("unlink", path: path(name)) }
    }

    private func path(_ name: String) -> String {
        // Only a name this type made is used: never a path a store record could point elsewhere with.
        directory + "/" + name.filter { $0.isHexDigit || $0 == "-" || $0 == "." }
    }
}
