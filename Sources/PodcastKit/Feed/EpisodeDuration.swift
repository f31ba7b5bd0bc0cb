/// Reads `itunes:duration` in the forms feeds write it.
public enum EpisodeDuration {
    /// Whole seconds (fractions dropped) for "3600", "1234.5", "62:05", "75:00", "1:02:05", "01:02:05.500",
    /// "1h 2m 3s" or "45 min"; nil for anything else, including negative values.
    public static func seconds(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { utf8 in
            var reader = Reader(utf8)
            reader.skipSpaces()
            guard reader.isAtDigit else { return nil }
            let first = reader.position
            _ = reader.number()
            let isClock = reader.current == UInt8(ascii: ":")
            reader.position = first
            let total = isClock ? reader.clock() : reader.unitsOrPlainSeconds()
            reader.skipSpaces()
            return reader.isAtEnd ? total : nil
        }
    }

    /// Reads a duration from UTF-8 bytes without copying them.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }
        var isAtEnd: Bool { position >= bytes.count }
        var isAtDigit: Bool { current.map { $0 &- UInt8(ascii: "0") < 10 } ?? false }

        /// `m:ss` or `h:mm:ss`, with an optional fraction. No field is range-checked: feeds write "75:00"
        /// for 75 minutes, and real ones hold "00:04:60" and "00:60:05", which mean what they add up to.
        mutating func clock() -> Int? {
            guard let first = number(), consume(UInt8(ascii: ":")), let second = number() else { return nil }
            guard consume(UInt8(ascii: ":")) else {
                _ = fraction()
                return first * 60 + second
            }
            guard let third = number() else { return nil }
            _ = fraction()
            return first * 3_600 + second * 60 + third
        }

        /// Plain seconds ("3600", "1234.5"), or numbers with units ("1h 2m 3s", "1.5 hours", "45 min").
        mutating func unitsOrPlainSeconds() -> Int? {
            var total = 0
            var largestUnitLeft = Int.max
            var sawUnit = false
            while isAtDigit {
                guard let value = number() else { return nil }
                let part = fraction()
                skipSpaces()
                guard let unit = unit() else {
                    // A bare number counts only on its own, as seconds.
                    return sawUnit ? nil : value
                }
                // Units must come largest first and only once each: "3s 2m" is not a duration.
                guard unit < largestUnitLeft else { return nil }
                largestUnitLeft = unit
                sawUnit = true
                total += value * unit + part.numerator * unit / part.denominator
                skipSpaces()
            }
            return sawUnit ? total : nil
        }

        /// Reads a unit word and returns its length in seconds, or nil (and reads nothing) when none is next.
        private mutating func unit() -> Int? {
            let start = position
            while let byte = current, (byte | 0x20) &- UInt8(ascii: "a") < 26 { position += 1 }
            let word = UnsafeBufferPointer(rebasing: bytes[start..<position])
            for unit in Reader.units {
                for name in unit.names where Reader.equalsIgnoringCase(word, name) { return unit.seconds }
            }
            position = start
            return nil
        }

        private static let units: [(names: [[UInt8]], seconds: Int)] = [
            (["h", "hr", "hrs", "hour", "hours"], 3_600),
            (["m", "min", "mins", "minute", "minutes"], 60),
            (["s", "sec", "secs", "second", "seconds"], 1),
        ].map { ($0.0.map { Array($0.utf8) }, $0.1) }

        private static func equalsIgnoringCase(_ word: UnsafeBufferPointer<UInt8>, _ lowercase: [UInt8]) -> Bool {
            guard word.count == lowercase.count else { return false }
            for index in 0..<word.count where word[index] | 0x20 != lowercase[index] { return false }
            return true
        }

        /// A run of digits; nil when there is none or it is too long to be a duration (more than 9 digits).
        mutating func number() -> Int? {
            var value = 0
            var count = 0
            while isAtDigit, let byte = current {
                value = value &* 10 &+ Int(byte - UInt8(ascii: "0"))
                count += 1
                position += 1
            }
            return (1...9).contains(count) ? value : nil
        }

        /// Reads a decimal fraction (".5") as a ratio, keeping six digits; 0/1 when none is next.
        mutating func fraction() -> (numerator: Int, denominator: Int) {
            guard current == UInt8(ascii: "."), position + 1 < bytes.count,
                bytes[position + 1] &- UInt8(ascii: "0") < 10
            else { return (0, 1) }
            position += 1
            var numerator = 0
            var denominator = 1
            while isAtDigit, let byte = current {
                if denominator < 1_000_000 {
                    numerator = numerator * 10 + Int(byte - UInt8(ascii: "0"))
                    denominator *= 10
                }
                position += 1
            }
            return (numerator, denominator)
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            position += 1
            return true
        }

        mutating func skipSpaces() {
            while let byte = current,
                byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                    || byte == UInt8(ascii: "\r")
            {
                position += 1
            }
        }
    }
}
