/// Plain text wrapped to a width for reading on a terminal: words kept whole (a word longer than
/// the width gets a line of its own), paragraphs and blank lines kept.
public enum TextWrap {
    /// The lines of `text` at most `width` columns wide (wide characters counted as two).
    public static func lines(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = 0
            for word in paragraph.split(separator: " ") {
                let columns = DisplayWidth.of(String(word))
                if used > 0 && used + 1 + columns > width {
                    lines.append(line)
                    line = ""
                    used = 0
                }
                line += (used > 0 ? " " : "") + word
                used += (used > 0 ? 1 : 0) + columns
            }
            lines.append(line)
        }
        return lines
    }
}
