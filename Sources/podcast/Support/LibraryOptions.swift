import ArgumentParser
import PodcastKit

/// The options that say what the Episodes directory gets (`download`, `resume`, `update`); each
/// also has a key in the configuration file, which the option overrides.
struct LibraryOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "How finished files are named inside the Episodes directory, with {podcast} {title} {date} {year} {month} {day} "
            + "{episode} {season} {guid} {ext}; / makes folders (default '{podcast}/{date} {title}.{ext}').",
        valueName: "template"))
    var nameTemplate: String?

    @Flag(help: "Also replace in names the characters FAT, exFAT and SMB refuse: quotes, * : < > ? | and backslashes.")
    var portableNames = false

    @Option(help: ArgumentHelp(
        "Companion files to keep beside each episode: transcript, chapters, image, info (comma-separated).",
        valueName: "files"))
    var with: String?

    @Option(help: ArgumentHelp("Which transcript to prefer, in order (default srt,vtt,json,html,text).", valueName: "types"))
    var transcriptTypes: String?

    @Flag(help: "Write title, album, artist, year, track, genre and description tags into finished files (MP3, M4A, Ogg, Opus, FLAC).")
    var tag = false

    @Flag(help: "Write an M3U8 playlist per podcast (newest first, relative paths) after each run.")
    var playlist = false

    func validate() throws {
        if let nameTemplate {
            do { _ = try NameTemplate(nameTemplate) } catch { throw ValidationError("--name-template: \(error)") }
        }
        if let with {
            do { _ = try Companion.set(from: [with]) } catch { throw ValidationError("--with: \(error)") }
        }
        if let transcriptTypes {
            do { _ = try TranscriptFormat.order(from: [transcriptTypes]) } catch { throw ValidationError("--transcript-types: \(error)") }
        }
    }

    /// The settings these options make over the configuration file's.
    func settings(over configuration: Configuration) -> LibrarySettings {
        var settings = configuration.librarySettings
        if let template = nameTemplate.flatMap({ try? NameTemplate($0) }) { settings.nameTemplate = template }
        if portableNames { settings.portableNames = true }
        if let companions = with.flatMap({ try? Companion.set(from: [$0]) }) { settings.companions = companions }
        if let order = transcriptTypes.flatMap({ try? TranscriptFormat.order(from: [$0]) }) { settings.transcriptTypes = order }
        if tag { settings.tag = true }
        if playlist { settings.playlist = true }
        return settings
    }
}
