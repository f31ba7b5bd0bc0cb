import PodcastText

/// Byte counts as users write them and read them.
///
/// Written: `500k`, `2M`, `16G`, `100000` (k, M and G are binary multiples, as curl and wget read
/// them), for speeds (`--limit-rate`) and sizes (`--max-size`) alike. Shown in the same binary
/// units, named as such (`48.2 MiB`), so `--limit-rate 2M` reads back as `2.0 MiB/s`.
public enum ByteCount {
    /// The count `text` spells, or nil when it is not a positive number of bytes.
    public static func parse(_ text: String) -> Int64? {
        let multipliers: [Character: Double] = [
            "k": 1024, "K": 1024, "m": 1024 * 1024, "M": 1024 * 1024, "g": 1024 * 1024 * 1024, "G": 1024 * 1024 * 1024,
        ]
        let trimmed = text.trimmingWhitespace()
        let multiplier = trimmed.last.flatMap { multipliers[$0] } ?? 1
        let digits = multiplier == 1 ? Substring(trimmed) : trimmed.dropLast()
        // Decimal digits and one point only: `Double` would also read `0x10`, `1e3`, `+5` and `inf`.
        guard digits.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }), digits.filter({ $0 == "." }).count <= 1,
            let value = Double(digits), value > 0, value * multiplier < Double(Int64.max)
        else { return nil }
        return max(1, Int64(value * multiplier))
    }

    /// Bytes per second for `text` (`500k`, `2M`), or nil when it is not a positive speed.
    public static func bytesPerSecond(_ text: String) -> Int? {
        parse(text).map { Int(clamping: $0) }
    }

    /// `bytes` as it would be written: `16G`, `2M`, `500k` when it is a whole number of that unit,
    /// else the plain number, so `parse` reads it back to the same count.
    public static func written(_ bytes: Int64) -> String {
        for (suffix, unit) in [("G", Int64(1) << 30), ("M", Int64(1) << 20), ("k", Int64(1) << 10)] where bytes % unit == 0 {
            return "\(bytes / unit)\(suffix)"
        }
        return "\(bytes)"
    }

    /// `48.2 MiB`: one decimal, binary units; a unit goes up at 1000 of it (`0.98 MiB` is shown
    /// as `1.0 MiB`), so the text is never longer than `999.9 KiB`.
    public static func text(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
