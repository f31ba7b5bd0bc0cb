/// Windows-1252, the encoding that bytes in undeclared or mislabelled feeds almost always are.
/// It is Latin-1 but for 0x80–0x9F, where it has punctuation (curly quotes, dashes, €, ™).
public enum Windows1252 {
    /// The character `byte` stands for, or nil for the five bytes the encoding leaves undefined.
    public static func scalar(_ byte: UInt8) -> Unicode.Scalar? {
        guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
        return punctuation[Int(byte - 0x80)]
    }

    private static let punctuation: [Unicode.Scalar?] = [
        "\u{20AC}", nil, "\u{201A}", "\u{0192}", "\u{201E}", "\u{2026}", "\u{2020}", "\u{2021}",
        "\u{02C6}", "\u{2030}", "\u{0160}", "\u{2039}", "\u{0152}", nil, "\u{017D}", nil,
        nil, "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "\u{2022}", "\u{2013}", "\u{2014}",
        "\u{02DC}", "\u{2122}", "\u{0161}", "\u{203A}", "\u{0153}", nil, "\u{017E}", "\u{0178}",
    ]
}
