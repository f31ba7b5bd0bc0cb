/// Counts in words that agree with their number: `1 episode`, `2 episodes`, `0 episodes`.
public enum Plural {
    /// `count` and `noun`, with an `s` unless `count` is 1 (`plural` for irregular nouns).
    public static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }
}
