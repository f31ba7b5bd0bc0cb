/// Counts with their noun in the right number: `1 episode`, `2 episodes`, `0 episodes`.
public enum Plural {
    /// `count` and `noun`, made plural with an `s` (or `plural`) unless `count` is 1.
    public static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }
}
