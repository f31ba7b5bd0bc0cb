import PodcastKit

/// How `podcast config` shows the settings: a configuration file of them, each line commented
/// with where its value came from; or `{"file", "settings": [{"key", "value", "origin"}]}`.
struct ConfigRendering {
    let settings: [EffectiveSettings.Setting]
    /// The configuration file's path (which may not exist).
    let file: String

    /// `key = value   # origin`, the comments aligned.
    var lines: [String] {
        let width = settings.map { DisplayWidth.of("\($0.key) = \($0.value)") }.max() ?? 0
        return ["# configuration file: \(file)"] + settings.map { setting in
            DisplayWidth.pad("\(setting.key) = \(setting.value)", to: width, alignment: .left) + "  # " + setting.origin
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
