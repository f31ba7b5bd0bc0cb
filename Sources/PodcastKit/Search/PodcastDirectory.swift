import FoundationEssentials
import PodcastHTTP
import PodcastText

/// A podcast directory `podcast search` can ask: a query in, numbered podcasts with their feeds
/// out. Each directory is one type in one file, listed in `SearchDirectories.all`; the command,
/// the table, `--json` and the numbers `podcast episodes N` takes are the same for all of them.
public protocol PodcastDirectory: Sendable {
    /// Its name, how `--directory` takes it, and where it is.
    static var info: SearchDirectoryInfo { get }

    /// The directory at `baseURL` (its `info.defaultBaseURL` unless the environment says
    /// otherwise), asked through `http`, with what it needs from `settings` (an API key); throws
    /// when a setting it needs is not set.
    init(baseURL: String, http: HTTPClient, settings: Settings) throws(DirectorySetupError)

    /// Runs `query` and numbers the podcasts found from 1, in the directory's order, at most
    /// `query.limit` of them.
    func search(_ query: SearchQuery) throws(SearchError) -> SearchOutcome
}

/// What names a directory, where it is, and what to say when it refuses a query.
public struct SearchDirectoryInfo: Sendable, Equatable {
    /// The name `--directory` takes and the state store keeps with the last search (`fyyd`).
    public let name: String
    /// The name messages use (`Podcast Index`).
    public let title: String
    /// The real service's API base.
    public let defaultBaseURL: String
    /// The environment variable that replaces `defaultBaseURL` (a stand-in, a mirror).
    public let baseURLVariable: String
    /// What to check when the directory refuses a query (a 4xx answer).
    public let refusalAdvice: String

    public init(name: String, title: String, defaultBaseURL: String, baseURLVariable: String, refusalAdvice: String) {
        self.name = name
        self.title = title
        self.defaultBaseURL = defaultBaseURL
        self.baseURLVariable = baseURLVariable
        self.refusalAdvice = refusalAdvice
    }
}

/// Every directory `podcast search --directory` knows, the default first.
public enum SearchDirectories {
    /// The directories; a new one is its own file and a line here.
    public static let all: [any PodcastDirectory.Type] = [ITunesCatalog.self, PodcastIndexDirectory.self, FyydDirectory.self]

    /// The names `--directory` takes, in `all`'s order.
    public static var names: [String] { all.map { $0.info.name } }

    /// The directory called `name` (in any letter case), if any.
    public static func named(_ name: String) -> (any PodcastDirectory.Type)? {
        all.first { $0.info.name == name.lowercased() }
    }
}

/// A directory that cannot be asked as configured: settings it needs are not set.
public struct DirectorySetupError: Error, Sendable, Equatable {
    /// The directory's `--directory` name.
    public var directory: String
    /// The settings it needs, all of them, in the order to name them.
    public var needs: [String]
    /// Those of `needs` that are not set.
    public var missing: [String]
    /// The section of the configuration file they belong in.
    public var section: SettingSection
    /// Where to get them.
    public var advice: String

    public init(directory: String, needs: [String], missing: [String], section: SettingSection, advice: String) {
        self.directory = directory
        self.needs = needs
        self.missing = missing
        self.section = section
        self.advice = advice
    }

    /// One line naming the settings and the file they go in: `search --directory podcastindex
    /// needs podcastindex-key and podcastindex-secret in [search] of ~/.config/podcast/config.toml …`.
    public func description(configFile: String) -> String {
        let needed = needs.count > 1 ? needs.dropLast().joined(separator: ", ") + " and " + needs.last! : needs.joined()
        let unset = missing == needs ? "" : " (\(missing.joined(separator: " and ")) \(missing.count == 1 ? "is" : "are") not set)"
        return "search --directory \(directory) needs \(needed) in [\(section.rawValue)] of \(configFile)\(unset); \(advice)"
    }
}

/// The request, status and JSON handling the directories share: a GET whose 4xx answer is read
/// for its reason, and a JSON body that must be JSON (an HTML error page is said to be one).
struct DirectoryRequest {
    let info: SearchDirectoryInfo
    let http: HTTPClient
    let term: String

    /// The answer to `url` (with `headers`), or the error saying what failed: the network, a
    /// rate limit (`rateLimitStatuses`), or a refusal with the reason `reason` finds in its body.
    func get(
        _ url: String, headers: [String] = [], rateLimitStatuses: Set<Int> = [429],
        reason: (HTTPResponse) -> String? = { _ in nil }
    ) throws(SearchError) -> HTTPResponse {
        let response: HTTPResponse
        do {
            // 4xx answers are taken so their body can say what was wrong with the query.
            response = try http.get(url, headers: headers, accepting: 200...499, maxBodyBytes: 16 * 1024 * 1024)
        } catch {
            throw SearchError(kind: .http(error), term: term, directory: info)
        }
        let status = response.status
        guard !(200...299).contains(status) else { return response }
        if rateLimitStatuses.contains(status) {
            let retryAfter = response.header("retry-after").flatMap { Int($0.trimmingWhitespace()) }
            throw SearchError(
                kind: .http(.status(status, url: response.effectiveURL, retryAfter: retryAfter)), term: term, directory: info)
        }
        throw SearchError(
            kind: .rejected(url: response.effectiveURL, status: status, reason: reason(response)?.singleLine()),
            term: term, directory: info)
    }

    /// `response`'s body as `T`; `shape` says what a body that decodes as JSON but not as `T`
    /// lacks (`JSON without a "feeds" list`).
    func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, shape: String) throws(SearchError) -> T {
        func invalid(_ reason: String) -> SearchError {
            SearchError(kind: .invalidResponse(url: response.effectiveURL, reason: reason), term: term, directory: info)
        }
        let firstByte = response.body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard let firstByte else { throw invalid("empty answer") }
        if firstByte == UInt8(ascii: "<") {
            throw invalid("an HTML or XML page instead of JSON")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(response.body))
        } catch DecodingError.keyNotFound, DecodingError.typeMismatch, DecodingError.valueNotFound {
            throw invalid(shape)
        } catch {
            throw invalid("invalid JSON")
        }
    }
}

/// Reading a directory's JSON leniently: a field that is missing, null or of another type is
/// nil, never a failure, so one odd entry cannot lose a whole answer.
extension KeyedDecodingContainer {
    /// The trimmed text at `key`; nil when it is missing, not text, or blank.
    func lenientText(_ key: Key) -> String? {
        guard let value = try? decodeIfPresent(String.self, forKey: key) else { return nil }
        let trimmed = value.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The whole number at `key`, also when it is written as text (`"42"`); nil otherwise.
    func lenientNumber(_ key: Key) -> Int? {
        if let number = try? decodeIfPresent(Int.self, forKey: key) { return number }
        return lenientText(key).flatMap { Int($0) }
    }

    /// The http(s) URL at `key`; nil for anything else (a `javascript:` or a file path).
    func lenientURL(_ key: Key) -> String? {
        lenientText(key).flatMap { HTTPClient.isHTTP($0) ? $0 : nil }
    }
}
