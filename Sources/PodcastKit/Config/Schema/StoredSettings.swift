import FoundationEssentials

/// Settings as a record keeps them (a background batch or update, a download record):
/// `{"version":2,"settings":{"concurrency":3,…}}`, the settings the record's kind keeps
/// (`SettingDefinition.Records`), each as `podcast config --json` writes it, never a secret.
/// Keys are sorted, so the same settings give the same text (how the worker finds batches it can
/// run together). A setting the record lacks (it predates the setting) takes its default; one
/// that no longer reads is an error, never a silent default.
struct StoredSettings: Codable, Equatable {
    /// The format's version; a record of a later one is refused.
    static let currentVersion = 2

    var version: Int
    var settings: [String: SettingValue]
    /// A batch's private file of secrets (`BatchSecrets`), when it has any.
    var secretsFile: String?

    /// `secretsFile` keeps the name it had when the file held only header values: records keep
    /// one format.
    private enum CodingKeys: String, CodingKey {
        case version, settings
        case secretsFile = "headersFile"
    }

    /// The record of `settings` for `record`.
    init(_ settings: Settings, for record: SettingDefinition.Records, secretsFile: String? = nil) {
        version = Self.currentVersion
        self.settings = Dictionary(
            uniqueKeysWithValues: SettingsSchema.all.filter { $0.records.contains(record) && !$0.isSecret }.map { ($0.key, $0.value(in: settings)) })
        self.secretsFile = secretsFile
    }

    /// A record of `values` as they are (an earlier version's record, carried over).
    init(values: [String: SettingValue], secretsFile: String?) {
        version = Self.currentVersion
        settings = values
        self.secretsFile = secretsFile
    }

    /// The record in `text`.
    init(stored text: String) throws(StoredSettingsError) {
        let record: StoredSettings
        do {
            record = try JSONDecoder().decode(Self.self, from: Data(text.utf8))
        } catch {
            throw StoredSettingsError(reason: "its settings are not a record this version reads")
        }
        guard record.version <= Self.currentVersion else {
            throw StoredSettingsError(reason: "its settings were written by a newer podcast (format \(record.version))")
        }
        self = record
    }

    /// The settings recorded, over the defaults.
    func settings(for record: SettingDefinition.Records) throws(StoredSettingsError) -> Settings {
        var result = Settings()
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) {
            guard let setting = SettingsSchema.setting(key), setting.records.contains(record), !setting.isSecret else {
                throw StoredSettingsError(reason: "its settings hold \(key), which this version does not know")
            }
            do throws(SettingError) { try setting.set(value, in: &result, given: false) } catch {
                throw StoredSettingsError(reason: "its stored \(error)")
            }
        }
        return result
    }

    /// The record's text: JSON with sorted keys.
    var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings, numbers, booleans and lists of strings always encode.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// A stored record whose settings this version cannot read, and why.
struct StoredSettingsError: Error, Equatable {
    var reason: String
}
