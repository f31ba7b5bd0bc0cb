import Foundation
@testable import PodcastKit
import Testing

/// Name templates: every field, values that try to escape, names FAT and SMB refuse, and the
/// templates that are refused.
@Suite(.timeLimit(.minutes(5))) struct NameTemplateTests {
    private let november20 = Date(timeIntervalSince1970: 1_795_161_600)

    private func values(
        podcast: String = "Show", title: String = "Title", guid: String? = "guid-1", episode: Int? = 7, season: Int? = 2
    ) -> NameValues {
        NameValues(podcast: podcast, title: title, published: november20, episode: episode, season: season, guid: guid, fileExtension: "mp3")
    }

    @Test func everyFieldTakesItsValue() throws {
        let template = try NameTemplate("{podcast}/{year}/{month}-{day}/{date} S{season}E{episode} {title} [{guid}].{ext}")
        #expect(template.render(values()).relativePath == "Show/2026/11-20/2026-11-20 S2E7 Title [guid-1].mp3")
    }

    @Test func aFolderWhoseFieldsAreAllEmptyIsLeftOut() throws {
        let template = try NameTemplate("{podcast}/{season}/{title}.{ext}")
        #expect(template.render(values(season: nil)).relativePath == "Show/Title.mp3")
    }

    @Test func theStandardTemplateNamesAnUndatedEpisodeByItsTitle() {
        let undated = NameValues(podcast: "Show", title: "Title", fileExtension: "m4a")
        #expect(NameTemplate.standard.render(undated).relativePath == "Show/Title.m4a")
    }

    /// Values that try to make folders, climb out, hide, or break lines, in every field.
    static let hostile = [
        "/", "..", "../../../etc/passwd", "/etc/passwd", ".", ".hidden", "a\u{0}b\u{7}c\nd\re", "", " ", "\\..\\..\\x",
        String(repeating: "ü", count: 600), String(repeating: "/..", count: 400), "\u{202E}evil\u{200B}",
    ]

    @Test(arguments: hostile)
    func hostileValuesInEveryFieldStayOneNameInsideTheEpisodesDirectory(value: String) throws {
        let template = try NameTemplate("{podcast}/{guid}/{title} {guid} {podcast}.{ext}")
        for candidate in [values(podcast: value), values(title: value), values(guid: value), values(podcast: value, title: value, guid: value)] {
            let name = template.render(candidate, suffix: " (12)", portable: false)
            let components = name.folders + [name.fileName]
            for component in components {
                #expect(!component.isEmpty)
                #expect(!component.contains("/"))
                #expect(!component.hasPrefix("."))
                #expect(component != "..")
                #expect(component.utf8.count <= 255)
                #expect(!component.unicodeScalars.contains { $0.properties.generalCategory == .control })
            }
            #expect(name.fileName.hasSuffix(" (12).mp3"))
            #expect((name.stem + ".transcript.html").utf8.count <= 255)
            #expect(components.count <= 3)
        }
    }

    @Test func thousandByteTitlesAreCutWithTheSuffixAndExtensionKept() {
        let name = NameTemplate.standard.render(values(title: String(repeating: "x", count: 1_000)), suffix: " (2)")
        #expect(name.fileName.utf8.count == 255 - Companion.longestExtensionBytes + 4)
        #expect(name.fileName.hasSuffix("x (2).mp3"))
    }

    @Test func portableNamesHaveNothingFATOrSMBRefuses() throws {
        let template = try NameTemplate("{podcast}/{title}.{ext}")
        let name = template.render(values(podcast: "What? \"Quotes\" <&> *Stars*", title: "Pilot: Why Tones? a|b\\c"), portable: true)
        #expect(name.relativePath == "What 'Quotes' -&- -Stars-/Pilot - Why Tones a-b-c.mp3")
        let refused = Set("\"*:<>?\\|")
        #expect(!name.relativePath.contains(where: refused.contains))
    }

    @Test func portableNamesKeepReadableSlashesAndAvoidDeviceNames() throws {
        let template = try NameTemplate("{title}.{ext}")
        #expect(template.render(values(title: "four / with slash"), portable: true).fileName == "four - with slash.mp3")
        #expect(template.render(values(title: "CON"), portable: true).fileName == "_CON.mp3")
        #expect(template.render(values(title: "lpt1.txt"), portable: true).fileName == "_lpt1.txt.mp3")
        #expect(template.render(values(title: "Really ?"), portable: true).fileName == "Really.mp3")
    }

    /// Microsoft's list ("Naming Files, Paths, and Namespaces"), written out rather than built as
    /// the table is, so a name missing from the table fails here.
    static let windowsDeviceNames = [
        "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
        "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9", "COM\u{B9}", "COM\u{B2}", "COM\u{B3}",
        "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9", "LPT\u{B9}", "LPT\u{B2}", "LPT\u{B3}",
    ]

    @Test func portableNamesAvoidEveryDeviceNameWindowsReserves() throws {
        #expect(EpisodeFileName.reservedOnWindows == Set(Self.windowsDeviceNames))
        let template = try NameTemplate("{title}.{ext}")
        for device in Self.windowsDeviceNames {
            for title in [device, device.lowercased(), device + ".txt", device + " ", "\(device).tar.gz"] {
                let name = template.render(values(title: title), portable: true).fileName
                #expect(name.hasPrefix("_"), "\(title) became \(name)")
            }
        }
        for title in ["COM10", "LPT", "CONSOLE", "COM\u{2074}", "NULL", "CONIN", "AUX1"] {
            #expect(template.render(values(title: title), portable: true).fileName == title + ".mp3")
        }
    }

    @Test func thePodcastsFolderIsTheLastFolderNamingIt() throws {
        #expect(NameTemplate.standard.render(values()).podcastFolderCount == 1)
        #expect(try NameTemplate("Podcasts/{podcast}/{year}/{title}.{ext}").render(values()).podcastFolderCount == 2)
        #expect(try NameTemplate("{podcast} - {title}.{ext}").render(values()).podcastFolderCount == nil)
    }

    @Test(arguments: [
        ("", "is empty"),
        ("/srv/{title}.{ext}", "starts with /"),
        ("{podcast}/../{title}.{ext}", "has a folder named .."),
        ("{podcast}//{title}.{ext}", "has an empty folder"),
        ("{nope}.{ext}", "names an unknown field {nope}"),
        ("{title.{ext}", "stray"),
        ("title}.{ext}", "stray }"),
        ("{title}.mp3", "must end with .{ext}"),
        ("{title}\t.{ext}", "control character"),
    ])
    func badTemplatesAreRefusedSayingWhy(template: String, reason: String) {
        #expect {
            _ = try NameTemplate(template)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func onlyTemplatesNamingEpisodeOrSeasonNeedTheFeedsDetails() throws {
        #expect(!NameTemplate.standard.usesFeedDetails)
        #expect(try NameTemplate("{podcast}/S{season} {title}.{ext}").usesFeedDetails)
        #expect(try NameTemplate("{episode} {title}.{ext}").usesFeedDetails)
    }
}
