/// Byte counts as users write them and read them.
///
/// Written: `500k`, `2M`, `16G`, `100000` (k, M and G are binary multiples, as curl and wget read
/// them), for speeds (`--limit-rate`) and sizes (`--max-size`) alike. Shown: `48.2 MB`, in
/// decimal units, as players and hosts show sizes.
public enum ByteCount {
    /// The count `text` spells, or nil when it is not a positive number of bytes.
    public static func parse(_ text: String) -> Int64? {
        let multipliers: [Character: Double] = [
            "k": 1024, "K": 1024, "m": 1024 * 1024, "M": 1024 * 1024, "g": 1024 * 1024 * 1024, "G": 1024 * 1024 * 1024,
        ]
        let trimmed = text.trimmingWhitespace()
        let multiplier = trimmed.last.flatMap { multipliers[$0] } ?? 1
        let digits = multiplier == 1 ? Substring(trimmed) : trimmed.dropLast()
        guard let value = Double(digits), value > 0, value * multiplier < Double(Int64.max) else { return nil }
        return max(1, Int64(value * multiplier))
    }

    /// Bytes per second for `text` (`500k`, `2M`), or nil when it is not a positive speed.
    public static func bytesPerSecond(_ text: String) -> Int? {
        parse(text).map { Int(clamping: $0) }
    }

    /// `48.2 MB`: one decimal, decimal units.
    public static func text(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
