@testable import PodcastKit
import Testing

/// `CompanionCheck.verdict`: a companion file is judged by its bytes, not by what the server
/// calls it. An image must start like a JPEG, PNG, WebP or GIF (and is named by which), chapters
/// must parse as a JSON object, a transcript must be text; a web page is refused as any of them
/// but an HTML transcript.
@Suite(.timeLimit(.minutes(5))) struct CompanionCheckTests {
    private static let url = "http://127.0.0.1:8080/companion"
    private static let page = Array("\u{FEFF}\n  <!DOCTYPE html><html><body>Please log in</body></html>".utf8)

    private func verdict(_ content: CompanionCheck.Content, _ bytes: [UInt8]) -> CompanionCheck.Verdict {
        CompanionCheck.verdict(content, of: bytes, from: Self.url)
    }

    @Test func anImageIsNamedByWhatItsBytesAre() {
        let samples: [(bytes: [UInt8], fileExtension: String)] = [
            ([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8), "jpg"),
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00], "png"),
            (Array("GIF89a".utf8) + [0x01, 0x00], "gif"),
            (Array("GIF87a".utf8) + [0x01, 0x00], "gif"),
            (Array("RIFF".utf8) + [0x24, 0x00, 0x00, 0x00] + Array("WEBPVP8 ".utf8), "webp"),
        ]
        for sample in samples {
            #expect(verdict(.image, sample.bytes) == .accepted(fileExtension: sample.fileExtension))
        }
    }

    @Test func aWebPageOrOtherBytesAreNoImage() {
        #expect(verdict(.image, Self.page) == .refused("the server sent a web page for \(Self.url), not a JPEG, PNG, WebP or GIF image"))
        #expect(verdict(.image, Array("<HTML><p>gone</p>".utf8)) == .refused(
            "the server sent a web page for \(Self.url), not a JPEG, PNG, WebP or GIF image"))
        #expect(verdict(.image, Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == .refused(
            "the file from \(Self.url) is not a JPEG, PNG, WebP or GIF image"))
        #expect(verdict(.image, []) == .refused("the server sent an empty file for \(Self.url), not a JPEG, PNG, WebP or GIF image"))
    }

    @Test func chaptersMustParseAsAJSONObject() {
        let chapters = .json(fileExtension: "chapters.json") as CompanionCheck.Content
        let good = #"{"version": "1.2.0", "chapters": [{"startTime": 0, "title": "Intro"}, {"startTime": 62.5, "title": "Ünïcode"}]}"#
        #expect(verdict(chapters, Array(good.utf8)) == .accepted(fileExtension: "chapters.json"))
        #expect(verdict(chapters, Self.page) == .refused("the server sent a web page for \(Self.url), not a JSON document"))
        let notAnObject = "the file from \(Self.url) is not a JSON document (it does not parse as a JSON object)"
        for bad in [#"{"version": "1.2.0", "chapters": ["#, #"{"chapters": []} trailing"#, #"[{"startTime": 0}]"#, "Not found"] {
            #expect(verdict(chapters, Array(bad.utf8)) == .refused(notAnObject), "\(bad)")
        }
    }

    @Test func aTranscriptMustBeTextInWhateverEncoding() {
        let srt = CompanionCheck.Content.text(fileExtension: "srt")
        #expect(verdict(srt, Array("1\n00:00:00,000 --> 00:00:02,000\nHello, loop.\n".utf8)) == .accepted(fileExtension: "srt"))
        #expect(verdict(srt, Array("1\r\n00:00:00,000 --> 00:00:02,000\r\nCaf".utf8) + [0xE9]) == .accepted(fileExtension: "srt"), "Windows-1252")
        #expect(verdict(srt, [0xFF, 0xFE, 0x31, 0x00, 0x0A, 0x00]) == .accepted(fileExtension: "srt"), "UTF-16 with its mark")
        #expect(verdict(srt, [0x49, 0x44, 0x33, 0x04, 0x00, 0x00]) == .refused(
            "the file from \(Self.url) is not subtitles or plain text (it holds binary data)"))
        #expect(verdict(srt, Self.page) == .refused("the server sent a web page for \(Self.url), not subtitles or plain text"))
    }

    @Test func anHTMLTranscriptIsAWebPageAndAJSONOneMustParse() {
        #expect(verdict(.html(fileExtension: "transcript.html"), Self.page) == .accepted(fileExtension: "transcript.html"))
        #expect(verdict(.html(fileExtension: "transcript.html"), [0x00, 0x01, 0x02]) == .refused(
            "the file from \(Self.url) is not a web page or text (it holds binary data)"))
        #expect(verdict(.json(fileExtension: "transcript.json"), Array(#"{"segments": []}"#.utf8)) == .accepted(fileExtension: "transcript.json"))
        #expect(verdict(.json(fileExtension: "transcript.json"), Self.page) == .refused(
            "the server sent a web page for \(Self.url), not a JSON document"))
    }

    @Test func eachTranscriptFormatSaysWhatItMustBe() {
        #expect(TranscriptFormat.srt.content == .text(fileExtension: "srt"))
        #expect(TranscriptFormat.vtt.content == .text(fileExtension: "vtt"))
        #expect(TranscriptFormat.text.content == .text(fileExtension: "transcript.txt"))
        #expect(TranscriptFormat.json.content == .json(fileExtension: "transcript.json"))
        #expect(TranscriptFormat.html.content == .html(fileExtension: "transcript.html"))
    }
}
