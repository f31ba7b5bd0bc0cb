// TOML's four date and time kinds, kept as their written parts: the configuration needs none of
// them as an instant, and FoundationEssentials' Date would lose local times' lack of an offset.

/// A calendar date without a time or offset (`1979-05-27`).
public struct TOMLLocalDate: Sendable, Hashable, CustomStringConvertible {
    /// The year, 0 to 9999.
    var year: Int
    /// The month, 1 to 12.
    var month: Int
    /// The day of the month, 1 to 31 (checked against the month and leap years).
    var day: Int

    /// `YYYY-MM-DD`.
    public var description: String { "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))" }

    /// The days in `month` of `year` in the proleptic Gregorian calendar RFC 3339 uses.
    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// A time of day without a date or offset (`07:32:00.999`).
public struct TOMLLocalTime: Sendable, Hashable, CustomStringConvertible {
    /// The hour, 0 to 23.
    var hour: Int
    /// The minute, 0 to 59.
    var minute: Int
    /// The second, 0 to 60 (60: a leap second, which RFC 3339 allows).
    var second: Int
    /// The fraction of the second in nanoseconds; digits past the ninth are dropped, as the
    /// specification allows.
    var nanosecond: Int

    /// `HH:MM:SS`, then the fraction without trailing zeros when there is one.
    public var description: String {
        var text = "\(digits(hour, 2)):\(digits(minute, 2)):\(digits(second, 2))"
        if nanosecond > 0 {
            var fraction = digits(nanosecond, 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text
    }
}

/// A date and time without an offset (`1979-05-27T07:32:00`).
public struct TOMLLocalDateTime: Sendable, Hashable, CustomStringConvertible {
    /// The date.
    var date: TOMLLocalDate
    /// The time of day.
    var time: TOMLLocalTime

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]`.
    public var description: String { "\(date)T\(time)" }
}

/// A date and time at an offset from UTC (`1979-05-27T07:32:00-07:00`).
public struct TOMLOffsetDateTime: Sendable, Hashable, CustomStringConvertible {
    /// The date and time as written, at `offsetMinutes`.
    var local: TOMLLocalDateTime
    /// Minutes east of UTC, -1439 to 1439; 0 for `Z`.
    var offsetMinutes: Int

    /// RFC 3339 text; a zero offset is written `Z`.
    public var description: String {
        guard offsetMinutes != 0 else { return "\(local)Z" }
        let size = abs(offsetMinutes)
        return "\(local)\(offsetMinutes < 0 ? "-" : "+")\(digits(size / 60, 2)):\(digits(size % 60, 2))"
    }
}

/// `value` in decimal, padded with zeros to `width` digits.
private func digits(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}
