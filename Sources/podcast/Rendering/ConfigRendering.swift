import PodcastKit
import PodcastText

/// How `podcast config` shows the settings, from the schema: a configuration file of them, by
/// section, each line commented with where its value came from (a setting without a value as a
/// comment: `# proxy: none`); or `{"file", "settings": [{"key", "section", "value", "origin",
/// "flag", "environment"}]}` with each value typed (null when not set). Secrets (header values)
/// are never shown: `"X-Api-Key: ***"`, `podcastindex-secret = "***"`.
struct ConfigRendering {
    let resolved: ResolvedSettings
    /// The configuration file's path (which may not exist).
    let file: String

    /// One setting as shown: its value typed, and as the file would write it.
    private func shown(_ setting: SettingDefinition) -> (value: SettingValue, written: String?) {
        if case .environment(_, let value?) = resolved.origin(of: setting.key) {
            return (.text(value), SettingValue.text(value).toml)
        }
        let value = setting.value(in: resolved.settings)
        guard setting.isSecret else { return (value, setting.written(in: resolved.settings)) }
        let hidden: SettingValue
        switch value {
        // A header's name says what it is for; only its value is the secret.
        case .list(let fields): hidden = .list(fields.map { String($0.prefix { $0 != ":" }) + ": ***" })
        // A secret that is set shows as set, and nothing of it.
        case .text: hidden = .text("***")
        default: return (value, setting.written(in: resolved.settings))
        }
        return (hidden, hidden.toml)
    }

    /// `key = value   # origin` by section, the comments aligned.
    var lines: [String] {
        let assignments = SettingsSchema.all.map { setting in
            shown(setting).written.map { "\(setting.key) = \($0)" } ?? "# \(setting.key): none"
        }
        // Aligned up to a terminal's width: one long value (a header list, a hostile 50 MB string)
        // would otherwise pad every other line to its length.
        let width = assignments.lazy.map(DisplayWidth.of).filter { $0 <= Self.alignedWidth }.max() ?? 0
        var lines = ["# configuration file: \(file)"]
        var section: SettingSection?
        for (setting, assignment) in zip(SettingsSchema.all, assignments) {
            if setting.section != section {
                section = setting.section
                lines += ["", "[\(setting.section.rawValue)]"]
            }
            lines.append(DisplayWidth.pad(assignment, to: width, alignment: .left) + "  # " + resolved.origin(of: setting.key).description)
        }
        return lines
    }

    /// The widest `key = value` the comments are aligned after; a longer one has its comment two
    /// spaces after it.
    static let alignedWidth = 60

    var json: JSONValue {
        .object([
            ("file", .string(file)),
            ("settings", .array(SettingsSchema.all.map { setting in
                .object([
                    ("key", .string(setting.key)), ("section", .string(setting.section.rawValue)), ("value", Self.json(shown(setting).value)),
                    ("origin", .string(resolved.origin(of: setting.key).description)), ("flag", .string(setting.flag)),
                    ("environment", .string(setting.environment)),
                ])
            })),
        ])
    }

    /// A setting's value as JSON, typed as the setting is.
    private static func json(_ value: SettingValue) -> JSONValue {
        switch value {
        case .none: .null
        case .boolean(let flag): .bool(flag)
        case .integer(let number): .int(Int(number))
        case .number(let number): .number(number)
        case .text(let text): .string(text)
        case .list(let items): .array(items.map { .string($0) })
        }
    }
}
