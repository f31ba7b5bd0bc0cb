import Foundation
import PodcastKit
import Testing

/// The configuration file's library keys: `name-template`, `portable-names`, `with`,
/// `transcript-types`, `tag`, `playlist`.
@Suite(.timeLimit(.minutes(5))) struct LibraryConfigurationTests {
    @Test func readsEveryLibraryKey() throws {
        let configuration = try Configuration.parse(
            """
            name-template = "{podcast}/{year}/{title}.{ext}"
            portable-names = true
            with = ["transcript", "info"]  # beside each episode
            transcript-types = ["vtt", "srt"]
            tag = true
            playlist = true
            """, path: "c.toml")
        let settings = configuration.settings.library
        #expect(settings.nameTemplate.text == "{podcast}/{year}/{title}.{ext}")
        #expect(settings.portableNames)
        #expect(settings.companions == [.transcript, .info])
        #expect(settings.transcriptTypes == [.vtt, .srt])
        #expect(settings.tag && settings.playlist)
    }

    @Test func withAlsoTakesACommaSeparatedString() throws {
        #expect(try Configuration.parse("with = \"image,chapters\"\n", path: "c.toml").settings.library.companions == [.image, .chapters])
    }

    @Test(arguments: [
        ("name-template = \"{title}.mp3\"\n", "must end with .{ext}"),
        ("name-template = 3\n", "name-template must be a template such as"),
        ("with = [\"video\"]\n", "with: \"video\" is not a companion file"),
        ("with = [1, 2]\n", "with must be a list of companion files"),
        ("transcript-types = []\n", "name at least one transcript type"),
        ("tag = \"yes\"\n", "tag must be true or false"),
    ])
    func badLibraryValuesNameTheLineAndWhy(text: String, reason: String) {
        #expect {
            _ = try Configuration.parse(text, path: "c.toml")
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.line == 1 && error.reason.contains(reason)
        }
    }
}
