/// The settings of the optional configuration file, over the defaults, with the line each was
/// written on; the environment and command-line options go over them (`SettingLayers`).
public struct Configuration: Sendable, Equatable {
    /// The file's settings over the defaults.
    public var settings = Settings()
    /// The file read, when there was one.
    public var path: String?
    /// The line each setting was written on, by key (`concurrency`).
    public var lines: [String: Int] = [:]
    /// What the file had that this version does not know, one sentence each
    /// (`c.toml:3: concurency is not a setting this version knows (did you mean concurrency?); ignored`).
    public var warnings: [String] = []

    /// An empty configuration: every setting at its default.
    public init() {}

    /// Where `key`'s value comes from: the file's line, or the default.
    public func origin(of key: String) -> SettingOrigin {
        guard let path, let line = lines[key] else { return .byDefault }
        return .file("\(path):\(line)")
    }
}

/// A configuration file that could not be used, with the place and what to do.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The line, from 1, or nil when the whole file is the problem.
    public var line: Int?
    /// What is wrong.
    public var reason: String

    /// Creates an error.
    public init(path: String, line: Int?, reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }

    /// One line: which file and line, what is wrong, what to do.
    public var description: String {
        let place = line.map { "\(path):\($0)" } ?? path
        return "configuration \(place): \(reason); fix the file or point PODCAST_CONFIG elsewhere"
    }
}
