/// A date and time as written, in the zone the text names; checked only when converted.
struct DateFields {
    var year: Int
    var month: Int
    var day: Int
    var hour = 0
    var minute = 0
    var second = 0
    /// Seconds east of UTC of the zone the fields are written in; at most 99:99, unchecked beyond that.
    var utcOffset = 0

    /// Seconds since the Unix epoch, or nil when a field is out of range or the instant
    /// falls outside years 1 to 9999 once the offset is applied (as Python's datetime does).
    var unixTime: Int? {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...DateFields.daysInMonth(month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let local = DateFields.daysFromCivil(year: year, month: month, day: day) * 86_400
            + hour * 3_600 + minute * 60 + second
        let utc = local - utcOffset
        guard utc >= DateFields.earliest, utc < DateFields.endOfYear9999 else { return nil }
        return utc
    }

    /// Fields for the `ordinal`th day of `year`, or nil when the year has fewer days.
    static func ordinal(_ ordinal: Int, year: Int) -> DateFields? {
        var remaining = ordinal
        for month in 1...12 {
            let length = daysInMonth(month, year: year)
            guard remaining > length else {
                return remaining >= 1 ? DateFields(year: year, month: month, day: remaining) : nil
            }
            remaining -= length
        }
        return nil
    }

    /// Years written with two digits: the 90s are the 1990s, anything else this century,
    /// feedparser's rule, which has held for feeds since the format began.
    static func expandingTwoDigitYear(_ year: Int) -> Int { year + (year < 90 ? 2000 : 1900) }

    static func isLeapYear(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`),
    /// exact for any year, so no Calendar is needed.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static let earliest = daysFromCivil(year: 1, month: 1, day: 1) * 86_400
    private static let endOfYear9999 = daysFromCivil(year: 10_000, month: 1, day: 1) * 86_400
}
