import PodcastHTTP

/// The settings a command runs with, layer over layer: the defaults, then the configuration
/// file, then the environment, then the command line; each with where its value came from, for
/// `podcast config`. The one place a setting's layers meet.
public struct ResolvedSettings: Sendable {
    public private(set) var settings: Settings
    private var origins: [String: SettingOrigin]

    /// The file's settings, over the defaults.
    public init(configuration: Configuration) {
        settings = configuration.settings
        origins = Dictionary(uniqueKeysWithValues: SettingsSchema.all.map { ($0.key, configuration.origin(of: $0.key)) })
    }

    /// The defaults alone, to check command-line values against before anything runs.
    public static var scratch: ResolvedSettings { ResolvedSettings(configuration: Configuration()) }

    /// Puts the environment's settings over these: each setting's variable
    /// (`PODCAST_EPISODES_DIR`), and a proxy the environment names, which libcurl reads itself
    /// (the setting then holds none, and `podcast config` shows the variable's).
    public mutating func apply(environment: [String: String]) throws(UsageError) {
        for setting in SettingsSchema.all {
            guard let name = setting.environment, let text = environment[name], !text.isEmpty else { continue }
            do throws(SettingError) { try setting.set(setting.commandLine(text), in: &settings) } catch {
                throw UsageError(error.described(as: name) + (error.detail == nil ? "; set it again or unset it" : ""))
            }
            origins[setting.key] = .environment(name)
        }
        if let (name, value) = Self.environmentProxy(environment) {
            settings.http.proxy = nil
            origins["proxy"] = .environment(name, value: value)
        }
    }

    /// Sets `key` to `value`, given on the command line as `flag`; a value the setting does not
    /// take is a usage error that names the flag and what was given.
    public mutating func apply(_ value: SettingValue, to key: String, flag: String) throws(UsageError) {
        guard let setting = SettingsSchema.setting(key) else { preconditionFailure("no setting \(key)") }
        do throws(SettingError) { try setting.set(value, in: &settings) } catch {
            let given = value.toml.map { ", not \($0)" } ?? ""
            throw UsageError(error.detail == nil ? error.described(as: flag) + given : error.described(as: flag))
        }
        origins[key] = .flag(flag)
    }

    /// `text`, given on the command line as `flag`, as `key`'s value.
    public mutating func apply(commandLine text: String, to key: String, flag: String) throws(UsageError) {
        guard let setting = SettingsSchema.setting(key) else { preconditionFailure("no setting \(key)") }
        try apply(setting.commandLine(text), to: key, flag: flag)
    }

    /// Sets the Episodes directory to `directory` (already made absolute) without changing where it came from.
    public mutating func settle(episodesDirectory directory: String) {
        settings.episodesDirectory = directory
    }

    /// Takes the `user:password@` out of `address` for the run's requests (`URLCredentials`) and
    /// returns the bare address; `address` as it is when it has none.
    public mutating func takeCredentials(from address: String) -> String {
        settings.http.credentials.take(from: address)
    }

    /// Where `key`'s value came from.
    public func origin(of key: String) -> SettingOrigin {
        origins[key] ?? .byDefault
    }

    /// The proxy variable the environment sets (name and value), which libcurl reads itself.
    private static func environmentProxy(_ environment: [String: String]) -> (name: String, value: String)? {
        for name in ["https_proxy", "HTTPS_PROXY", "http_proxy", "all_proxy", "ALL_PROXY"] {
            if let value = environment[name], !value.isEmpty { return (name, value) }
        }
        return nil
    }
}
