import PodcastKit

/// How `podcast config` shows the settings: a configuration file of them, each line commented
/// with where its value came from (a setting without a value as a comment: `# proxy: none`); or
/// `{"file", "settings": [{"key", "value", "origin"}]}` (`value` null when not set).
struct ConfigRendering {
    let settings: [EffectiveSettings.Setting]
    /// The configuration file's path (which may not exist).
    let file: String

    /// `key = value   # origin`, the comments aligned.
    var lines: [String] {
        let assignments = settings.map { setting in setting.value.map { "\(setting.key) = \($0)" } ?? "# \(setting.key): none" }
        let width = assignments.map(DisplayWidth.of).max() ?? 0
        return ["# configuration file: \(file)"] + zip(assignments, settings).map { assignment, setting in
            DisplayWidth.pad(assignment, to: width, alignment: .left) + "  # " + setting.origin
        }
    }

    var json: JSONValue {
        .object([
            ("file", .string(file)),
            ("settings", .array(settings.map { setting in
                .object([("key", .string(setting.key)), ("value", .string(setting.value)), ("origin", .string(setting.origin))])
            })),
        ])
    }
}
