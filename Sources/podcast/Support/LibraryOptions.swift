import ArgumentParser
import PodcastKit

/// The options that say what the Episodes directory gets (`download`, `resume`, `update`); each
/// sets a setting of the schema's [library] section.
struct LibraryOptions: ParsableArguments {
    @Option(help: .setting("name-template", valueName: "template"))
    var nameTemplate: String?

    @Flag(help: .setting("portable-names"))
    var portableNames = false

    @Option(help: .setting("with", valueName: "files"))
    var with: String?

    @Option(help: .setting("transcript-types", valueName: "types"))
    var transcriptTypes: String?

    @Flag(help: .setting("tag"))
    var tag = false

    @Flag(help: .setting("playlist"))
    var playlist = false

    /// The settings these options give.
    var given: [GivenSetting] {
        let texts = [("name-template", nameTemplate), ("with", with), ("transcript-types", transcriptTypes)]
            .compactMap { key, text in text.map { GivenSetting(key, text: $0) } }
        let flags = [("portable-names", portableNames), ("tag", tag), ("playlist", playlist)]
            .filter(\.1).map { GivenSetting($0.0, .boolean(true)) }
        return texts + flags
    }
}
