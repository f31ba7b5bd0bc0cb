import FoundationEssentials
import Glibc

extension Configuration {
    /// Reads the file at `path`; a missing file is an empty configuration.
    ///
    /// The format is the flat part of TOML: `key = value` lines, `#` comments, strings in double
    /// quotes, whole numbers. Keys use dashes (`stall-timeout`); underscores are accepted too.
    public static func load(path: String) throws(ConfigurationError) -> Configuration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path))
        } catch {
            if !FileManager.default.fileExists(atPath: path) { return Configuration() }
            throw ConfigurationError(path: path, line: nil, reason: "cannot be read")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw ConfigurationError(path: path, line: nil, reason: "is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// Parses configuration text; `path` is only used in errors.
    public static func parse(_ text: String, path: String) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            let line = String(rawLine).trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError(path: path, line: lineNumber, reason: "expected `key = value`")
            }
            let key = String(line[..<equals]).trimmingWhitespace().replacing("_", with: "-")
            let value = try Value(String(line[line.index(after: equals)...]), path: path, line: lineNumber)
            func fail(_ reason: String) -> ConfigurationError {
                ConfigurationError(path: path, line: lineNumber, reason: reason)
            }
            switch key {
            case "user-agent":
                configuration.userAgent = try value.text(or: fail("user-agent must be a quoted string"))
            case "country":
                let country = try value.text(or: fail("country must be a quoted two-letter code such as \"GB\""))
                guard SearchQuery.isValidCountry(country) else {
                    throw fail("country must be a two-letter code such as \"GB\"")
                }
                configuration.country = country.uppercased()
            case "connect-timeout":
                configuration.connectTimeout = try value.positiveInteger(or: fail("connect-timeout must be a whole number of seconds, 1 or more"))
            case "concurrency":
                let count = try value.positiveInteger(or: fail("concurrency must be a whole number from 1 to 16"))
                guard count <= 16 else { throw fail("concurrency must be a whole number from 1 to 16") }
                configuration.concurrency = count
            case "episodes-dir":
                configuration.episodesDirectory = try value.text(or: fail("episodes-dir must be a quoted path"))
            case "limit-rate":
                let rate = try value.text(or: fail("limit-rate must be a quoted speed such as \"2M\""))
                guard let bytes = ByteCount.bytesPerSecond(rate) else { throw fail("limit-rate must be a speed such as \"500k\" or \"2M\"") }
                configuration.limitRate = bytes
            case "max-episode-size":
                let size = try value.text(or: fail("max-episode-size must be a quoted size such as \"16G\" or \"500M\""))
                guard let bytes = ByteCount.parse(size) else { throw fail("max-episode-size must be a size such as \"16G\" or \"500M\"") }
                configuration.maxEpisodeSize = bytes
            case "stall-timeout":
                configuration.stallTimeout = try value.positiveInteger(or: fail("stall-timeout must be a whole number of seconds, 1 or more"))
            case "retries":
                configuration.retries = try value.positiveInteger(or: fail("retries must be a whole number, 1 or more"))
            case "retry-wait":
                configuration.retryWait = try value.seconds(or: fail("retry-wait must be a number of seconds such as 2 or 0.5"))
            case "allow-insecure-redirects":
                configuration.allowsInsecureRedirects = try value.boolean(or: fail("allow-insecure-redirects must be true or false"))
            case "ca-file":
                let file = try value.text(or: fail("ca-file must be the quoted path of a PEM file"))
                guard access(file, R_OK) == 0 else { throw fail("ca-file \"\(file)\" cannot be read") }
                configuration.certificateAuthorities = file
            case "retry-budget":
                configuration.retryBudget = try value.seconds(or: fail("retry-budget must be a number of seconds such as 1800"))
            case "name-template":
                let text = try value.text(or: fail("name-template must be a quoted template such as \"{podcast}/{date} {title}.{ext}\""))
                do throws(NameTemplateError) { configuration.nameTemplate = try NameTemplate(text) } catch { throw fail("\(error)") }
            case "portable-names":
                configuration.portableNames = try value.boolean(or: fail("portable-names must be true or false"))
            case "with":
                let words = try value.words(or: fail("with must be a list such as [\"transcript\", \"chapters\"]"))
                do throws(LibraryValueError) { configuration.companions = try Companion.set(from: words) } catch { throw fail("with: \(error)") }
            case "transcript-types":
                let words = try value.words(or: fail("transcript-types must be a list such as [\"srt\", \"vtt\"]"))
                do throws(LibraryValueError) { configuration.transcriptTypes = try TranscriptFormat.order(from: words) } catch {
                    throw fail("transcript-types: \(error)")
                }
            case "tag":
                configuration.tag = try value.boolean(or: fail("tag must be true or false"))
            case "playlist":
                configuration.playlist = try value.boolean(or: fail("playlist must be true or false"))
            default:
                configuration.unknownKeys.append("\(path):\(lineNumber): \(key)")
            }
        }
        return configuration
    }

    /// A value on the right of `=`: a quoted string, a bare word, or a one-line array of quoted
    /// strings, with any trailing comment removed.
    private enum Value {
        case string(String)
        case bare(String)
        case array([String])

        init(_ raw: String, path: String, line: Int) throws(ConfigurationError) {
            let trimmed = raw.trimmingWhitespace()
            if trimmed.hasPrefix("[") {
                self = .array(try Self.array(trimmed, path: path, line: line))
                return
            }
            guard trimmed.hasPrefix("\"") else {
                let bare = trimmed.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
                self = .bare(bare.trimmingWhitespace())
                return
            }
            var result = ""
            var escaped = false
            for character in trimmed.dropFirst() {
                if escaped {
                    switch character {
                    case "n": result.append("\n")
                    case "t": result.append("\t")
                    default: result.append(character)
                    }
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    self = .string(result)
                    return
                } else {
                    result.append(character)
                }
            }
            throw ConfigurationError(path: path, line: line, reason: "unterminated string")
        }

        func text(or error: ConfigurationError) throws(ConfigurationError) -> String {
            guard case .string(let text) = self else { throw error }
            return text
        }

        /// An array's strings, or a quoted string's comma-separated words.
        func words(or error: ConfigurationError) throws(ConfigurationError) -> [String] {
            switch self {
            case .array(let words): return words
            case .string(let text): return text.split(separator: ",").map(String.init)
            case .bare: throw error
            }
        }

        /// `["a", "b"]` (a trailing comment allowed): the quoted strings.
        private static func array(_ text: String, path: String, line: Int) throws(ConfigurationError) -> [String] {
            var words: [String] = []
            var rest = Substring(text.dropFirst())
            while true {
                rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
                if rest.first == "]" { break }
                guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else {
                    throw ConfigurationError(path: path, line: line, reason: "a list is quoted strings in brackets, such as [\"a\", \"b\"]")
                }
                words.append(String(rest[rest.index(after: rest.startIndex)..<close]))
                rest = rest[rest.index(after: close)...]
            }
            return words
        }

        /// `true` or `false`.
        func boolean(or error: ConfigurationError) throws(ConfigurationError) -> Bool {
            guard case .bare(let word) = self, let value = Bool(word) else { throw error }
            return value
        }

        /// A whole number, 1 or more.
        func positiveInteger(or error: ConfigurationError) throws(ConfigurationError) -> Int {
            guard case .bare(let word) = self, let number = Int(word), number >= 1 else { throw error }
            return number
        }

        /// A duration in seconds, fractions allowed (`0.5`), more than zero and at most a day.
        func seconds(or error: ConfigurationError) throws(ConfigurationError) -> Duration {
            guard case .bare(let word) = self, let number = Double(word), number > 0, number <= 86_400 else { throw error }
            return .milliseconds(Int64((number * 1000).rounded()))
        }
    }
}
