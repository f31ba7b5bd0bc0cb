import PodcastKit
import PodcastText
import Testing

/// The byte-level tables the text path classifies characters with, held to Swift's own Unicode
/// properties, and the string functions built on them held to what those properties give.
@Suite(.timeLimit(.minutes(5))) struct ScalarKindTests {
    /// What Swift's properties say `scalar` is, in `ScalarKind`'s terms.
    private static func expectedKind(_ scalar: Unicode.Scalar) -> ScalarKind {
        if scalar.properties.isWhitespace { return .whitespace }
        if scalar.properties.generalCategory == .control { return .control }
        if (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) { return .bidiControl }
        return .visible
    }

    /// Every scalar there is: the tables (ASCII, Latin-1, General Punctuation) and the claim that
    /// everything outside them but U+1680 and U+3000 is visible.
    private static let allScalars = (0...0x10FFFF).compactMap(Unicode.Scalar.init)

    /// The scalars of the tables' ranges and the two outside them, where the tables decide.
    private static let tableScalars = (Array(0..<0x100) + [0x1680, 0x3000] + Array(0x2000..<0x2080)).compactMap(Unicode.Scalar.init)

    @Test func scalarKindAgreesWithUnicodePropertiesForEveryScalar() {
        let wrong = Self.allScalars.filter { ScalarKind.of($0) != Self.expectedKind($0) }
        #expect(wrong.isEmpty, "wrong kinds: \(wrong.prefix(10).map { String($0.value, radix: 16) })")
    }

    @Test func scalarKindFromUTF8AgreesWithUnicodePropertiesForEveryScalar() {
        var bytes: [UInt8] = []
        var wrong: [UInt32] = []
        for scalar in Self.allScalars {
            bytes.removeAll(keepingCapacity: true)
            UTF8.encode(scalar) { bytes.append($0) }
            let (kind, length) = bytes.withUnsafeBufferPointer { ScalarKind.at(0, in: $0) }
            if kind != Self.expectedKind(scalar) || length != bytes.count { wrong.append(scalar.value) }
        }
        #expect(wrong.isEmpty, "wrong kinds or lengths: \(wrong.prefix(10).map { String($0, radix: 16) })")
    }

    @Test func trimmingRemovesExactlyUnicodeWhitespaceAtTheEdges() {
        for scalar in Self.tableScalars {
            let padded = String(scalar) + "mid" + String(scalar)
            let expected = scalar.properties.isWhitespace ? "mid" : padded
            #expect(padded.trimmingWhitespace() == expected, "U+\(String(scalar.value, radix: 16))")
        }
        #expect("\u{3000}\u{2003} 日本 \u{A0}\u{85}".trimmingWhitespace() == "日本")
        #expect(" \u{2028}\t".trimmingWhitespace() == "")
    }

    @Test func singleLineFoldsWhitespaceAndControlsAsUnicodePropertiesSay() {
        for scalar in Self.tableScalars {
            let text = "a" + String(scalar) + "b"
            let folds = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
            #expect(text.singleLine() == (folds ? "a b" : text), "U+\(String(scalar.value, radix: 16))")
        }
        #expect("  Größe\u{3000}\u{3000}und\u{0085}日本語\u{7}  ".singleLine() == "Größe und 日本語")
    }

    @Test func bidiControlsAreRemovedAndNothingElse() {
        let controls = [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069].compactMap(Unicode.Scalar.init)
        for scalar in Self.tableScalars + controls {
            let text = "a" + String(scalar) + "b"
            #expect(text.removingBidiControls() == (controls.contains(scalar) ? "ab" : text), "U+\(String(scalar.value, radix: 16))")
        }
        #expect("\u{202E}4pm.exe\u{202C} — „Zitat“ 日本".removingBidiControls() == "4pm.exe — „Zitat“ 日本")
    }
}
