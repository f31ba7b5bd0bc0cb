import FoundationEssentials
import Glibc

extension Configuration {
    /// Reads the file at `path`. A missing file is an empty configuration, unless `required`
    /// (the user named it in PODCAST_CONFIG): then it is an error.
    public static func load(path: String, required: Bool = false) throws(ConfigurationError) -> Configuration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path))
        } catch {
            if !FileManager.default.fileExists(atPath: path) {
                guard !required else {
                    throw ConfigurationError(path: path, line: nil, reason: "no such file (PODCAST_CONFIG names it)")
                }
                return Configuration()
            }
            throw ConfigurationError(path: path, line: nil, reason: "cannot be read")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw ConfigurationError(path: path, line: nil, reason: "is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// The sections a key may also be written in (`[download]` `concurrency = 3`), besides the top.
    static let sections: [String: Set<String>] = [
        "search": ["country"],
        "library": ["name-template", "portable-names", "with", "transcript-types", "tag", "playlist"],
        "download": [
            "concurrency", "max-per-host", "episodes-dir", "limit-rate", "max-episode-size", "retries", "retry-wait",
            "retry-budget",
        ],
        "http": [
            "user-agent", "connect-timeout", "stall-timeout", "feed-timeout", "headers", "header-hosts", "proxy", "cookies", "ca-file",
            "allow-insecure-redirects",
        ],
    ]

    /// Why a table named `name` is an error: it names a setting, whose value is no table; nil for
    /// any other name (a section, or a table this version does not know).
    static func settingWrittenAsTable(_ name: String) -> String? {
        let key = name.replacing("_", with: "-")
        guard sections[key] == nil, sections.values.contains(where: { $0.contains(key) }) else { return nil }
        let what = key == "feed-timeout" ? "a number of seconds" : "a value"
        return "\(key) must be \(what), not a table; write \(key) = <value>"
    }

    /// Parses configuration text (TOML); `path` is only used in messages. Keys use dashes
    /// (`stall-timeout`; underscores are read as dashes) and may stand at the top or in their
    /// section (`[search]`, `[download]`, `[library]`, `[http]`); a key set twice is an error.
    public static func parse(_ text: String, path: String) throws(ConfigurationError) -> Configuration {
        let document = try ConfigurationDocument(text, path: path)
        var configuration = Configuration()
        configuration.path = path
        for table in document.nestedTables {
            configuration.unknownKeys.append("\(path):\(table.line): [\(table.name)]")
        }
        for entry in document.entries.sorted(by: { $0.line < $1.line }) {
            let key = entry.key.replacing("_", with: "-")
            let place = "\(path):\(entry.line)"
            if let section = entry.section {
                // `feed-timeout = { seconds = 30 }`: a table where a setting's value belongs.
                if let problem = Self.settingWrittenAsTable(section) {
                    throw ConfigurationError(path: path, line: entry.line, reason: problem)
                }
                guard let keys = sections[section] else {
                    configuration.unknownKeys.append("\(place): [\(section)] \(key)")
                    continue
                }
                guard keys.contains(key) else {
                    if let home = sections.first(where: { $0.value.contains(key) })?.key {
                        throw ConfigurationError(path: path, line: entry.line, reason: "\(key) belongs in [\(home)] or at the top, not in [\(section)]")
                    }
                    configuration.unknownKeys.append("\(place): [\(section)] \(key)")
                    continue
                }
            }
            if let earlier = configuration.lines[key] {
                throw ConfigurationError(path: path, line: entry.line, reason: "\(key) is already set on line \(earlier); keep one of them")
            }
            if try configuration.apply(key, SettingValue(value: entry.value, path: path, line: entry.line)) {
                configuration.lines[key] = entry.line
            } else {
                configuration.unknownKeys.append("\(place): \(key)")
            }
        }
        return configuration
    }

    /// Sets `key` to `value`; false for a key this version does not know.
    private mutating func apply(_ key: String, _ read: SettingValue) throws(ConfigurationError) -> Bool {
        let fail = read.fail
        switch key {
        case "user-agent":
            userAgent = try read.text("user-agent must be a quoted string")
        case "country":
            let code = try read.text("country must be a quoted two-letter code such as \"GB\"")
            guard SearchQuery.isValidCountry(code) else { throw fail("country must be a two-letter code such as \"GB\"") }
            country = code.uppercased()
        case "connect-timeout":
            connectTimeout = try read.integer(in: 1...600, "connect-timeout must be a whole number of seconds from 1 to 600")
        case "concurrency":
            concurrency = try read.integer(in: 1...16, "concurrency must be a whole number from 1 to 16")
        case "max-per-host":
            maxPerHost = try read.integer(in: 1...16, "max-per-host must be a whole number from 1 to 16")
        case "episodes-dir":
            let directory = try read.text("episodes-dir must be a quoted path")
            guard !directory.trimmingWhitespace().isEmpty else { throw fail("episodes-dir is empty; give a folder, or leave it out for the default") }
            episodesDirectory = directory
        case "limit-rate":
            let rate = try read.text("limit-rate must be a quoted speed such as \"2M\"")
            guard let bytes = ByteCount.bytesPerSecond(rate) else { throw fail("limit-rate must be a speed such as \"500k\", \"2M\" or \"1G\"") }
            limitRate = bytes
        case "max-episode-size":
            let size = try read.text("max-episode-size must be a quoted size such as \"16G\" or \"500M\"")
            guard let bytes = ByteCount.parse(size) else { throw fail("max-episode-size must be a size such as \"16G\" or \"500M\"") }
            maxEpisodeSize = bytes
        case "stall-timeout":
            stallTimeout = try read.integer(in: 1...86_400, "stall-timeout must be a whole number of seconds, 1 or more")
        case "retries":
            retries = try read.integer(in: 1...1000, "retries must be a whole number, 1 or more")
        case "feed-timeout":
            let problem = "feed-timeout must be a number of seconds from 1 to 86400, such as 120 or 30"
            let seconds = try read.seconds(problem)
            guard seconds >= .seconds(1) else { throw fail(problem) }
            feedTimeout = seconds
        case "retry-wait":
            retryWait = try read.seconds("retry-wait must be a number of seconds such as 2 or 0.5")
        case "retry-budget":
            retryBudget = try read.seconds("retry-budget must be a number of seconds such as 1800")
        case "allow-insecure-redirects":
            allowsInsecureRedirects = try read.boolean("allow-insecure-redirects must be true or false")
        case "cookies":
            cookies = try read.boolean("cookies must be true or false")
        case "ca-file":
            let file = try read.text("ca-file must be the quoted path of a PEM file")
            guard access(file, R_OK) == 0 else { throw fail("ca-file \"\(file)\" cannot be read") }
            certificateAuthorities = file
        case "proxy":
            let address = try read.text("proxy must be a quoted URL such as \"http://proxy.example:3128\"")
            guard address.contains("://") || !address.contains("/") else {
                throw fail("proxy must be a URL such as \"http://proxy.example:3128\" or \"socks5h://127.0.0.1:1080\"")
            }
            proxy = address
        case "headers":
            let fields = try read.strings("headers must be a list of quoted 'Name: value' strings, such as [\"X-Api-Key: abc\"]")
            for field in fields {
                if let problem = RequestHeaders.problem(with: field) { throw fail("headers: \(problem)") }
            }
            headers = fields
        case "header-hosts":
            let hosts = try read.strings("header-hosts must be a list of quoted host names, such as [\"cdn.example.com\"]")
            for host in hosts where !RequestHeaders.isHostName(host) {
                throw fail("header-hosts takes host names such as \"cdn.example.com\", not \"\(host)\"")
            }
            headerHosts = hosts
        case "name-template":
            let text = try read.text("name-template must be a quoted template such as \"{podcast}/{date} {title}.{ext}\"")
            do throws(NameTemplateError) { nameTemplate = try NameTemplate(text) } catch { throw fail("\(error)") }
        case "portable-names":
            portableNames = try read.boolean("portable-names must be true or false")
        case "with":
            let words = try read.strings("with must be a list such as [\"transcript\", \"chapters\"]")
            do throws(LibraryValueError) { companions = try Companion.set(from: words) } catch { throw fail("with: \(error)") }
        case "transcript-types":
            let words = try read.strings("transcript-types must be a list such as [\"srt\", \"vtt\"]")
            do throws(LibraryValueError) { transcriptTypes = try TranscriptFormat.order(from: words) } catch {
                throw fail("transcript-types: \(error)")
            }
        case "tag":
            tag = try read.boolean("tag must be true or false")
        case "playlist":
            playlist = try read.boolean("playlist must be true or false")
        default:
            return false
        }
        return true
    }
}

/// One setting's value read as the type the setting takes, or the setting's own error.
private struct SettingValue {
    let value: ConfigurationDocument.Value
    let path: String
    let line: Int

    /// The error `reason` at this setting's line.
    func fail(_ reason: String) -> ConfigurationError {
        ConfigurationError(path: path, line: line, reason: reason)
    }

    func text(_ problem: String) throws(ConfigurationError) -> String {
        guard case .string(let text) = value else { throw fail(problem) }
        return text
    }

    func boolean(_ problem: String) throws(ConfigurationError) -> Bool {
        guard case .boolean(let flag) = value else { throw fail(problem) }
        return flag
    }

    func integer(in range: ClosedRange<Int>, _ problem: String) throws(ConfigurationError) -> Int {
        guard case .integer(let number) = value, range.contains(number) else { throw fail(problem) }
        return number
    }

    /// A duration in seconds, fractions allowed (`0.5`), more than zero and at most a day.
    func seconds(_ problem: String) throws(ConfigurationError) -> Duration {
        let number: Double
        switch value {
        case .integer(let whole): number = Double(whole)
        case .number(let fraction): number = fraction
        default: throw fail(problem)
        }
        guard number > 0, number <= 86_400 else { throw fail(problem) }
        return .milliseconds(Int64((number * 1000).rounded()))
    }

    func strings(_ problem: String) throws(ConfigurationError) -> [String] {
        switch value {
        case .strings(let list): return list
        case .string(let one): return [one]
        default: throw fail(problem)
        }
    }
}
