import Foundation
import PodcastKit
import PodcastText
import Testing

/// What the output boundary masks of the URLs in any text: credentials and the values of
/// parameters named like secrets, wherever the URL sits, and nothing else, byte for byte.
@Suite(.timeLimit(.minutes(5))) struct SecretRedactorTests {
    private func redacted(_ text: String) -> String { SecretRedactor.redacted(text) }

    // MARK: Credentials

    @Test func blankingKeepsTheLengthAndHidesWhatRedactingHides() {
        let text = "https://u:p4ss@h.example/f.xml?access_token=abc&x=1 and https://h.example/plain"
        var bytes = Array(text.utf8)
        let found = bytes.withUnsafeMutableBytes { SecretRedactor.blank($0) }
        #expect(found)
        #expect(String(decoding: bytes, as: UTF8.self) == "https://******@h.example/f.xml?access_token=***&x=1 and https://h.example/plain")
        var plain = Array("podcast download 1-3 --json".utf8)
        #expect(!plain.withUnsafeMutableBytes { SecretRedactor.blank($0) })
        #expect(String(decoding: plain, as: UTF8.self) == "podcast download 1-3 --json")
    }

    @Test func credentialsAreMaskedWhateverTheScheme() {
        #expect(redacted("https://user:pa55@host.example/a@b?c=d") == "https://***@host.example/a@b?c=d")
        #expect(redacted("HTTP://u:p@h/") == "HTTP://***@h/")
        #expect(redacted("ftp://anon:mail@files.example/x") == "ftp://***@files.example/x")
        #expect(redacted("socks5h://user:pw@127.0.0.1:1080") == "socks5h://***@127.0.0.1:1080")
    }

    @Test func aUserWithoutAPasswordIsMaskedToo() {
        #expect(redacted("https://TOKEN@host.example/") == "https://***@host.example/")
        #expect(redacted("https://TOKEN@host.example") == "https://***@host.example")
    }

    @Test func aProxyURLLosesItsCredentialsAndKeepsItsPort() {
        #expect(redacted("proxy = \"http://user:pw@proxy:3128\"") == "proxy = \"http://***@proxy:3128\"")
        #expect(redacted("via http://user:pw@proxy:3128, then") == "via http://***@proxy:3128, then")
    }

    @Test func anAtSignOutsideTheAuthorityIsNoCredential() {
        #expect(redacted("https://host.example/path@x") == "https://host.example/path@x")
        #expect(redacted("http://host/?mail=a@b.example") == "http://host/?mail=a@b.example")
        #expect(redacted("http://host/#a@b") == "http://host/#a@b")
        #expect(redacted("http://@host/") == "http://@host/")
        #expect(redacted("write to joe@example.com or see http://h/x") == "write to joe@example.com or see http://h/x")
    }

    // MARK: Parameters

    @Test func secretParametersAreMaskedInTheMiddleAndAtTheEnd() {
        #expect(redacted("https://h/f.xml?token=s3cr3t") == "https://h/f.xml?token=***")
        #expect(redacted("https://h/f.xml?token=s3cr3t&episode=3") == "https://h/f.xml?token=***&episode=3")
        #expect(redacted("https://h/f.xml?episode=3&api_key=k&page=2&sig=abc") == "https://h/f.xml?episode=3&api_key=***&page=2&sig=***")
        #expect(redacted("https://h/f.xml?Access_Token=a&X-Amz-Signature=b&X-Amz-Credential=c")
            == "https://h/f.xml?Access_Token=***&X-Amz-Signature=***&X-Amz-Credential=***")
        #expect(redacted("https://d.cloudfront.net/ep.mp3?Expires=1&Policy=p&Signature=s&Key-Pair-Id=k")
            == "https://d.cloudfront.net/ep.mp3?Expires=1&Policy=***&Signature=***&Key-Pair-Id=***")
        #expect(redacted("https://h/?authToken=a&client_secret=b&password=c&__token__=d")
            == "https://h/?authToken=***&client_secret=***&password=***&__token__=***")
    }

    @Test func ordinaryParametersAndEmptyValuesStayAsTheyAre() {
        let ordinary = "https://h/f.xml?episode=3&page=2&keyword=swift&monkey=1&passage=4&format=mp3&token=&key"
        #expect(redacted(ordinary) == ordinary)
    }

    @Test func fragmentsEndAValueAndTheirOwnSecretsAreMasked() {
        #expect(redacted("https://h/ep.mp3?token=abc#t=10") == "https://h/ep.mp3?token=***#t=10")
        #expect(redacted("https://app.example/cb#access_token=abc&state=1") == "https://app.example/cb#access_token=***&state=1")
    }

    @Test func aURLCopiedOutOfHTMLKeepsItsEscapedAmpersands() {
        #expect(redacted("https://h/f?a=1&amp;token=x&amp;b=2") == "https://h/f?a=1&amp;token=***&amp;b=2")
    }

    // MARK: Where URLs sit

    @Test func urlsInJSONStringsAreFoundWithOrWithoutEscapedSlashes() {
        #expect(redacted(#"{"url":"http://u:p@h/f.xml?token=t","n":1}"#) == #"{"url":"http://***@h/f.xml?token=***","n":1}"#)
        #expect(redacted(#"{"url":"http:\/\/u:p@h\/f.xml?token=t"}"#) == #"{"url":"http:\/\/***@h\/f.xml?token=***"}"#)
        #expect(redacted(#"{"detail":"see \"http://u:p@h/x\""}"#) == #"{"detail":"see \"http://***@h/x\""}"#)
    }

    @Test func punctuationQuotesAndBracketsAroundAURLAreKept() {
        #expect(redacted("(http://u:p@h/x?token=abc).") == "(http://***@h/x?token=***).")
        #expect(redacted("'https://h/?key=abc', \"https://h/?key=def\"") == "'https://h/?key=***', \"https://h/?key=***\"")
        #expect(redacted("<https://h/?sig=abc>; [https://h/?sig=def]") == "<https://h/?sig=***>; [https://h/?sig=***]")
        #expect(redacted("feed http://u:p@h/f.xml: 404") == "feed http://***@h/f.xml: 404")
        #expect(redacted("“https://h/?token=abc”") == "“https://h/?token=***”")
    }

    @Test func everyURLInATextIsMaskedAlsoOneInsideAnother() {
        let message = "Failed to connect to http://u:p@127.0.0.1:9/x, then \"https://k@h.example/y\" too"
        #expect(redacted(message) == "Failed to connect to http://***@127.0.0.1:9/x, then \"https://***@h.example/y\" too")
        #expect(redacted("https://track.example/r/https://u:p@cdn.example/ep.mp3?token=t")
            == "https://track.example/r/https://***@cdn.example/ep.mp3?token=***")
        #expect(redacted("https://h/?token=http://u:p@x/&a=1") == "https://h/?token=***&a=1")
    }

    @Test func textWithoutSecretsIsReturnedByteForByte() {
        for text in ["", "no credentials: http://h/x", "a table\twith # and ? and @ but no URL", "Café — 日本語 🎙 http://例え.jp/パス?q=1",
                     "\u{1B}[31merror:\u{1B}[0m http://h/x?episode=3"] {
            #expect(Array(redacted(text).utf8) == Array(text.utf8))
        }
    }

    @Test func nonASCIITextAroundASecretIsKept() {
        #expect(redacted("Épisode: https://ü:ß@hôte.example/ü?token=äbc→fin") == "Épisode: https://***@hôte.example/ü?token=***→fin")
        #expect(redacted("日本 http://u:p@h/ 日本") == "日本 http://***@h/ 日本")
    }

    @Test func bytesAreHandedOnAsTheyAreWhenTheyHoldNoSecret() {
        let plain = Array(#"[{"url":"http://h/a.mp3"}]"#.utf8)
        plain.withUnsafeBytes { bytes in
            SecretRedactor.redact(bytes) { output in #expect(output.baseAddress == bytes.baseAddress) }
        }
        let secret = Array(#"[{"url":"http://u:p@h/a.mp3"}]"#.utf8)
        var written: [UInt8] = []
        secret.withUnsafeBytes { bytes in SecretRedactor.redact(bytes) { written += $0 } }
        #expect(String(decoding: written, as: UTF8.self) == #"[{"url":"http://***@h/a.mp3"}]"#)
    }

    // MARK: Measuring and cutting

    /// Columns are lined up on the text as the console shows it, masked.
    @Test func textIsMeasuredAndPaddedAsShown() {
        #expect(DisplayWidth.of("http://user:password@h/x") == "http://***@h/x".count)
        let table = TextTable(columns: [.init("URL"), .init("Title")], rows: [["http://u:longpassword@h/a", "A"], ["http://h/bb", "B"]])
        let shown = table.render(width: nil).lines.map(SecretRedactor.redacted)
        #expect(shown == ["URL             Title", "http://***@h/a  A", "http://h/bb     B"])
    }

    /// A line too wide for its room is cut; what the console shows of it never holds part of a
    /// password, wherever the cut falls.
    @Test func aCutLineNeverKeepsPartOfAPassword() {
        let line = "fetching http://listener:hunter2pass@feeds.example/private.xml: 1 MB"
        for width in 10...line.count {
            #expect(!SecretRedactor.redacted(DisplayWidth.truncate(line, to: width)).contains("hunter"), "width \(width)")
            #expect(!SecretRedactor.redacted(DisplayWidth.truncateMiddle(line, to: width)).contains("hunter"), "width \(width)")
        }
        // Masked, it fits: nothing is cut.
        #expect(DisplayWidth.truncate("http://u:verylongpassword@h/", to: 13) == "http://u:verylongpassword@h/")
    }
}
