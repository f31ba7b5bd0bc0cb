import FoundationEssentials

/// Dates written in UTC for people and for JSON, without a calendar or formatter object.
public enum UTCDate {
    /// `2026-11-20T08:00:00Z`.
    public static func iso8601(_ date: Date) -> String {
        let (year, month, day, seconds) = civil(date)
        guard (0...9999).contains(year) else {
            return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))Z"
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        // Written digit by digit: interpolating padded pieces costs a dozen strings a date.
        func append(_ value: Int, digits: Int, then separator: Unicode.Scalar) {
            var divisor = digits == 4 ? 1000 : 10
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
            bytes.append(UInt8(ascii: separator))
        }
        append(year, digits: 4, then: "-")
        append(month, digits: 2, then: "-")
        append(day, digits: 2, then: "T")
        append(seconds / 3600, digits: 2, then: ":")
        append(seconds / 60 % 60, digits: 2, then: ":")
        append(seconds % 60, digits: 2, then: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `2026-11-20`.
    public static func day(_ date: Date) -> String {
        let (year, month, day, _) = civil(date)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// `2026-11-20 08:00`.
    public static func minute(_ date: Date) -> String {
        let seconds = civil(date).seconds
        return day(date) + " \(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2))"
    }

    /// Year, month, day and seconds into the day of `date` in UTC (proleptic Gregorian calendar).
    static func civil(_ date: Date) -> (year: Int, month: Int, day: Int, seconds: Int) {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let seconds = total - days * 86_400
        // Howard Hinnant's days-to-civil: eras of 400 years starting on 1 March.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, seconds)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
