import Foundation
@testable import PodcastKit
import Testing

/// What `--with`, `--transcript-types` and the stored library settings mean, and which format a
/// download's first bytes say it is.
@Suite(.timeLimit(.minutes(5))) struct LibrarySettingsTests {
    @Test func companionListsReadCommaSeparatedOrAsWords() throws {
        #expect(try Companion.set(from: ["transcript, image"]) == [.transcript, .image])
        #expect(try Companion.set(from: ["info", "chapters"]) == [.info, .chapters])
        #expect(try Companion.set(from: [""]) == [])
        #expect(throws: LibraryValueError.self) { try Companion.set(from: ["video"]) }
    }

    @Test func theBestTranscriptIsTheFirstTypeInTheUsersOrder() throws {
        let transcripts = [
            Transcript(url: "https://x/t.html", type: "text/html"), Transcript(url: "https://x/t.vtt", type: "text/vtt"),
            Transcript(url: "https://x/t.srt", type: "application/x-subrip"), Transcript(url: "https://x/t", type: "application/zip"),
        ]
        #expect(TranscriptFormat.best(of: transcripts, order: TranscriptFormat.allCases)?.transcript.url == "https://x/t.srt")
        let htmlFirst = try TranscriptFormat.order(from: ["html,vtt"])
        #expect(TranscriptFormat.best(of: transcripts, order: htmlFirst)?.format == .html)
        #expect(TranscriptFormat.best(of: transcripts, order: [.json]) == nil)
        #expect(TranscriptFormat(mediaType: nil, url: "https://x/a.txt?x=1") == .text)
        #expect(throws: LibraryValueError.self) { try TranscriptFormat.order(from: ["pdf"]) }
    }

    @Test func storedSettingsReadBackAsTheyWere() throws {
        let settings = LibrarySettings(
            nameTemplate: try NameTemplate("{podcast}/{season}/{title} = {guid}.{ext}"), portableNames: true,
            companions: [.transcript, .info], transcriptTypes: [.vtt, .srt], tag: true, playlist: true)
        #expect(try settings.stored.map(LibrarySettings.init(stored:)) == settings)
        #expect(LibrarySettings().stored == nil)
        let earlier = try #require(LegacySettingsRecords.library("template={title}.{ext}\nwith=info,image\ntag=1"))
        #expect(try LibrarySettings(stored: earlier) == LibrarySettings(nameTemplate: try NameTemplate("{title}.{ext}"), companions: [.info, .image], tag: true))
        // What no longer reads is an error that the store names, never the defaults in silence.
        #expect(LegacySettingsRecords.library("future=1") == nil)
        let broken = try #require(LegacySettingsRecords.library("template=no ext\nwith=video"))
        #expect(throws: StoredSettingsError.self) { try LibrarySettings(stored: broken) }
    }

    @Test func mediaFormatsAreToldByTheirFirstBytes() {
        let ogg: [UInt8] = Array("OggS".utf8) + [UInt8](repeating: 0, count: 24)
        let headers: [([UInt8], MediaFormat)] = [
            (Array("ID3\u{4}".utf8), .mp3),
            ([0xFF, 0xFB, 0x90, 0x64], .mp3),
            (Array("\u{0}\u{0}\u{0}\u{20}ftypM4A ".utf8), .mp4),
            (Array("fLaC".utf8), .flac),
            (ogg + Array("OpusHead".utf8), .opus),
            (ogg + [1] + Array("vorbis".utf8), .vorbis),
        ]
        for (header, format) in headers {
            #expect(MediaFormat.sniff(header) == format, "\(header.prefix(8))")
        }
    }

    @Test func bytesOfNoTaggableFormatAreNoFormat() {
        #expect(MediaFormat.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)) == nil)
        #expect(MediaFormat.sniff([0xFF, 0xF1, 0x50, 0x80]) == nil)  // AAC in ADTS: layer 00
        #expect(MediaFormat.sniff(Array("<html>".utf8)) == nil)
        #expect(MediaFormat.sniff([]) == nil)
    }

    @Test func aSubscriptionsTemplateAndCompanionsReplaceTheRunsOnly() throws {
        let run = LibrarySettings(companions: [.image], tag: true)
        let own = SubscriptionSettings(nameTemplate: try NameTemplate("{title}.{ext}"), companions: [.info])
        let settings = try #require(own.library(over: run))
        #expect(settings.nameTemplate.text == "{title}.{ext}")
        #expect(settings.companions == [.info])
        #expect(settings.tag)
        #expect(SubscriptionSettings().library(over: run) == nil)
    }
}
