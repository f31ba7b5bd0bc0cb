import ArgumentParser
import PodcastKit

extension ArgumentHelp {
    /// The help of the option that sets `key`, from the settings schema: what it does, its
    /// default, and its key in the configuration file.
    static func setting(_ key: String, valueName: String? = nil) -> ArgumentHelp {
        guard let setting = SettingsSchema.setting(key) else { preconditionFailure("no setting \(key)") }
        let summary = setting.summary.hasSuffix(".") ? String(setting.summary.dropLast()) : setting.summary
        // A flag's default is off: saying so adds nothing.
        let standard = setting.defaultText == "false" ? "" : "default " + setting.defaultText.filter { !"\"[]".contains($0) } + "; "
        return ArgumentHelp("\(summary) (\(standard)\(key) in [\(setting.section.rawValue)] of the configuration file).", valueName: valueName)
    }
}

/// A setting given on the command line: its key, and its value as the schema reads it.
struct GivenSetting {
    var key: String
    var value: SettingValue
    /// The flag that gave it, when not the setting's own (`--header` gives `header-hosts` too).
    private var givenBy: String?

    /// `text`, given for `key`, read as that setting reads an argument (`"5"` is the number 5).
    init(_ key: String, text: String) {
        guard let setting = SettingsSchema.setting(key) else { preconditionFailure("no setting \(key)") }
        self.key = key
        value = setting.commandLine(text)
    }

    init(_ key: String, _ value: SettingValue, givenBy flag: String? = nil) {
        self.key = key
        self.value = value
        givenBy = flag
    }

    /// The flag that gives it (`--max-size`).
    var flag: String { givenBy ?? SettingsSchema.setting(key)?.flag ?? "--\(key)" }

    /// Checks `given` as their settings would read them, before anything runs: a value a
    /// setting does not take is a usage error naming the flag.
    static func validate(_ given: [GivenSetting]) throws {
        var scratch = ResolvedSettings.scratch
        for setting in given {
            do throws(UsageError) { try scratch.apply(setting.value, to: setting.key, flag: setting.flag) } catch {
                throw ValidationError(error.description)
            }
        }
    }
}
