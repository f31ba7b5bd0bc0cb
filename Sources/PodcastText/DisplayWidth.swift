import CTerminal

/// How many terminal columns text takes, counting wide (CJK, emoji) and zero-width characters.
///
/// Text is measured, padded and cut as the console shows it: with the secrets of its URLs masked
/// (`SecretRedactor`). Columns lined up on the text as given would be out of line once the
/// console masks a password; a cut between a password and the `@` after it would leave the
/// console nothing to know the password by.
public enum DisplayWidth {
    private static let localeReady: Bool = {
        podcast_use_utf8_ctype()
        return true
    }()

    /// Columns taken by `text` on a terminal.
    public static func of(_ text: String) -> Int {
        let text = SecretRedactor.redacted(text)
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return text.utf8.count
        }
        return text.reduce(0) { $0 + of($1) }
    }

    /// Columns taken by one grapheme cluster: that of its first scalar, or 2 when it asks for
    /// emoji presentation (which older wcwidth tables do not know).
    public static func of(_ character: Character) -> Int {
        _ = localeReady
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.properties.isEmojiPresentation || scalars.contains("\u{FE0F}") {
            return 2
        }
        return max(0, Int(podcast_wcwidth(first.value)))
    }

    /// `text` cut to at most `width` columns, ending in "…" when something was cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        let text = SecretRedactor.redacted(text)
        var result = ""
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// `text` cut to at most `width` columns by taking out its middle ("Episode 1…: The End"),
    /// keeping a third of the room for the start and the rest for the end, where titles that
    /// share a start differ.
    public static func truncateMiddle(_ text: String, to width: Int) -> String {
        guard width > 2 else { return truncate(text, to: width) }
        guard of(text) > width else { return text }
        let text = SecretRedactor.redacted(text)
        let head = (width - 1) / 3
        var start = ""
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > head { break }
            start.append(character)
            used += columns
        }
        var end = ""
        var tail = 0
        for character in text.reversed() {
            let columns = of(character)
            if tail + columns > width - 1 - used { break }
            end.insert(character, at: end.startIndex)
            tail += columns
        }
        return start + "…" + end
    }

    /// `text` padded with spaces to `width` columns, on the right or, for `.right`, on the left.
    public static func pad(_ text: String, to width: Int, alignment: TextTable.Alignment) -> String {
        let padding = String(repeating: " ", count: max(0, width - of(text)))
        return alignment == .left ? text + padding : padding + text
    }
}
