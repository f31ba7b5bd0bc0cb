/// Speeds as users write them: `500k`, `2M`, `1.5M`, `100000` (bytes per second; k and M are
/// binary multiples, as curl and wget read them).
public enum ByteRate {
    /// Bytes per second for `text`, or nil when it is not a positive speed.
    public static func bytesPerSecond(_ text: String) -> Int? {
        let multipliers: [Character: Double] = ["k": 1024, "K": 1024, "m": 1024 * 1024, "M": 1024 * 1024]
        let trimmed = text.trimmingWhitespace()
        let multiplier = trimmed.last.flatMap { multipliers[$0] } ?? 1
        let digits = multiplier == 1 ? Substring(trimmed) : trimmed.dropLast()
        guard let value = Double(digits), value > 0, value * multiplier < Double(Int.max) else { return nil }
        return max(1, Int(value * multiplier))
    }
}
