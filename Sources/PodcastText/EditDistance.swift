/// How far apart two words are, to answer a typo with the word meant (`podcast serach`,
/// `concurency = 3`, a subscription's title): one rule for commands, settings and titles.
public enum EditDistance {
    /// Edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`.
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }

    /// The one of `names` `word` is likely a typo of: the only one it starts, else the nearest
    /// within 2 edits (ignoring case).
    public static func closest(to word: String, among names: [String]) -> String? {
        let word = word.lowercased()
        guard !word.isEmpty else { return nil }
        let starting = names.filter { $0.hasPrefix(word) }
        if starting.count == 1 { return starting[0] }
        let scored = names.map { ($0, between(word, $0)) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }
}
