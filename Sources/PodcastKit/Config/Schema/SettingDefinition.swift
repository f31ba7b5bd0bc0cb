/// The sections of the configuration file; every setting belongs to one (and may also stand at
/// the top of the file).
public enum SettingSection: String, Sendable, CaseIterable {
    case search, download, http, library, update
}

/// Where a setting's value came from, in `podcast config`'s words.
public enum SettingOrigin: Sendable, Equatable, CustomStringConvertible {
    case byDefault
    /// The configuration file's line (`path:line`).
    case file(String)
    /// An environment variable; `value` when libcurl reads it itself (a proxy), so the setting
    /// holds none.
    case environment(String, value: String? = nil)
    /// A command-line flag (`--limit-rate`).
    case flag(String)

    public var description: String {
        switch self {
        case .byDefault: "default"
        case .file(let place): place
        case .environment(let name, _): "environment (\(name))"
        case .flag(let flag): "flag \(flag)"
        }
    }
}

/// One setting: its key, its section, where its typed value lives in `Settings`, what it takes,
/// the flag and environment variable that also set it, whether batches and subscriptions
/// record it, and its help line. `SettingsSchema.all` lists them.
public struct SettingDefinition: @unchecked Sendable {
    /// The records that keep a setting as it was when they were made.
    public struct Records: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// A background batch or update (run later by the worker, as the command would have).
        public static let batch = Records(rawValue: 1)
        /// A subscription (`subscribe --name-template`: its own value over the run's).
        public static let subscription = Records(rawValue: 2)
        /// A download record (so `resume` finishes an episode as it was begun).
        public static let download = Records(rawValue: 4)
    }

    /// The key in the file (`max-episode-size`).
    public let key: String
    public let section: SettingSection
    /// The command-line flag that sets it (`--max-size`), if any; `update --feed-timeout` and
    /// `search --country` are their commands' own.
    public let flag: String?
    /// The environment variable that sets it (over the file, under the flag), if any.
    public let environment: String?
    public let records: Records
    /// What it does, one line.
    public let summary: String
    /// Its default, as help shows it.
    public let defaultText: String
    /// What it takes (`a whole number from 1 to 16`).
    public let takes: String
    /// True for a value that may be a secret (header values): never shown, never stored in a
    /// record (a batch keeps it in a private file, `BatchSecrets`).
    public let isSecret: Bool

    // @unchecked: key paths and these closures are immutable, built once in `SettingsSchema.all`.
    private let assign: (inout Settings, SettingValue) throws(SettingProblem) -> Void
    private let typed: (Settings) -> SettingValue
    private let writtenValue: (Settings) -> String?
    private let commandLineValue: (String) -> SettingValue
    private let present: (Settings) throws(SettingProblem) -> Void

    init<Value>(
        _ key: String, _ section: SettingSection, _ path: WritableKeyPath<Settings, Value>, _ kind: SettingKind<Value>,
        flag: String? = nil, environment: String? = nil, records: Records = [], secret: Bool = false, defaultText: String? = nil,
        _ summary: String
    ) {
        self.key = key
        self.section = section
        self.flag = flag
        self.environment = environment
        self.records = records
        self.summary = summary
        self.takes = kind.takes
        isSecret = secret
        assign = { (settings, value) throws(SettingProblem) in settings[keyPath: path] = try kind.read(value) }
        typed = { kind.value($0[keyPath: path]) }
        writtenValue = { settings in
            let value = settings[keyPath: path]
            return kind.written.map { $0(value) } ?? kind.value(value).toml
        }
        commandLineValue = kind.commandLine
        present = { (settings) throws(SettingProblem) in try kind.present?(settings[keyPath: path]) }
        let standard = Settings()[keyPath: path]
        self.defaultText = defaultText ?? kind.written.flatMap { $0(standard) } ?? kind.value(standard).toml ?? "none"
    }

    /// Sets this setting in `settings` to `value`; throws the one-line reason it is not one.
    /// `given`: the value is given now (file, environment, flag), so what must hold on this
    /// machine is checked too; a record read back is not (its CA file may have gone since: that
    /// is the transfer's error to report, not a reason the record cannot be read).
    public func set(_ value: SettingValue, in settings: inout Settings, given: Bool = true) throws(SettingError) {
        do throws(SettingProblem) {
            try assign(&settings, value)
            if given { try present(settings) }
        } catch {
            throw SettingError(key: key, takes: takes, detail: error.detail)
        }
    }

    /// The value of this setting in `settings`, typed.
    public func value(in settings: Settings) -> SettingValue { typed(settings) }

    /// The value as the configuration file would write it; nil when it is not set.
    public func written(in settings: Settings) -> String? { writtenValue(settings) }

    /// A command-line argument as the value it stands for.
    public func commandLine(_ text: String) -> SettingValue { commandLineValue(text) }
}

/// A value a setting does not take: which setting, what it takes, and what is wrong when there
/// is more to say than that.
public struct SettingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var takes: String
    public var detail: String?

    /// `concurrency must be a whole number from 1 to 16`, or `with: unknown companion "x"; …`.
    public var description: String { described(as: key) }

    /// The reason with the setting called `name` (`--max-size`).
    public func described(as name: String) -> String {
        guard let detail else { return "\(name) must be \(takes)" }
        // A detail that is a whole predicate (`is empty; …`) reads on from the name.
        return detail.hasPrefix("is ") ? "\(name) \(detail)" : "\(name): \(detail)"
    }
}
