import Glibc
import PodcastPlatform

extension Configuration {
    /// Reads the file at `path`. A missing file is an empty configuration, unless `required`
    /// (the user named it in PODCAST_CONFIG): then it is an error. `/dev/null` (or any empty
    /// file) is no settings at all.
    public static func load(path: String, required: Bool = false) throws(ConfigurationError) -> Configuration {
        let bytes: [UInt8]
        switch Self.read(path) {
        case .success(let read): bytes = read
        case .failure(let error) where error.code == ENOENT:
            guard !required else { throw ConfigurationError(path: path, line: nil, reason: "no such file (PODCAST_CONFIG names it)") }
            return Configuration()
        case .failure(let error):
            throw ConfigurationError(path: path, line: nil, reason: "cannot be read (\(error.reason))")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(path: path, line: nil, reason: "is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// The bytes of the file at `path`, read to its end: a device or a pipe (`/dev/null`,
    /// `<(…)`) too, which have no size to read up to.
    private static func read(_ path: String) -> Result<[UInt8], SystemError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(SystemError(call: "open", path: path, code: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(SystemError(call: "read", path: path, code: errno))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Why a table named `name` is an error: it names a setting, whose value is no table; nil for
    /// any other name (a section, or a table this version does not know).
    static func settingWrittenAsTable(_ name: String) -> String? {
        guard SettingSection(rawValue: name) == nil, let setting = SettingsSchema.setting(name) else { return nil }
        return "\(setting.key) must be \(setting.takes), not a table; write \(setting.key) = <value>"
    }

    /// Parses configuration text (TOML); `path` is only used in messages. Keys use dashes
    /// (`stall-timeout`; underscores are read as dashes) and may stand at the top or in their
    /// section (`SettingSection`); a key set twice is an error. What this version does not know
    /// is a warning that names the nearest key or section it does know.
    public static func parse(_ text: String, path: String) throws(ConfigurationError) -> Configuration {
        let document = try ConfigurationDocument(text, path: path)
        var configuration = Configuration()
        configuration.path = path
        let sections = SettingSection.allCases.map(\.rawValue)
        for table in document.nestedTables {
            configuration.warnings.append("\(path):\(table.line): [\(table.name)] is not a section this version knows; ignored")
        }
        var unknownSections: Set<String> = []
        for entry in document.entries.sorted(by: { $0.line < $1.line }) {
            let key = entry.key.replacing("_", with: "-")
            let place = "\(path):\(entry.line)"
            let setting = SettingsSchema.setting(key)
            if let section = entry.section {
                // `feed-timeout = { seconds = 30 }`: a table where a setting's value belongs.
                if let problem = Self.settingWrittenAsTable(section) {
                    throw ConfigurationError(path: path, line: entry.line, reason: problem)
                }
                guard let known = SettingSection(rawValue: section) else {
                    if unknownSections.insert(section).inserted {
                        let guess = SettingsSchema.closest(to: section, among: sections).map { " (did you mean [\($0)]?)" } ?? ""
                        configuration.warnings.append("\(place): [\(section)] is not a section this version knows\(guess); its settings are ignored")
                    }
                    continue
                }
                if let setting, setting.section != known {
                    throw ConfigurationError(
                        path: path, line: entry.line, reason: "\(key) belongs in [\(setting.section.rawValue)] or at the top, not in [\(section)]")
                }
            }
            guard let setting else {
                let guess = SettingsSchema.meant(by: key).map { " (did you mean \($0)?)" } ?? ""
                configuration.warnings.append("\(place): \(key) is not a setting this version knows\(guess); ignored")
                continue
            }
            if let earlier = configuration.lines[key] {
                throw ConfigurationError(path: path, line: entry.line, reason: "\(key) is already set on line \(earlier); keep one of them")
            }
            do throws(SettingError) {
                guard let value = entry.value else { throw SettingError(key: key, takes: setting.takes, detail: nil) }
                try setting.set(value, in: &configuration.settings)
            } catch {
                throw ConfigurationError(path: path, line: entry.line, reason: error.description)
            }
            configuration.lines[key] = entry.line
        }
        return configuration
    }
}
