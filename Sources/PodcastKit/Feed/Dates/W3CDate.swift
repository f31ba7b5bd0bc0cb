/// W3C-DTF and ISO 8601 feed dates (`dc:date`, Atom's `published` and `updated`).
enum W3CDate {
    /// Reads W3C-DTF and the ISO 8601 forms feeds use: `2003`, `2003-12`, `2003-12-31`, with a time
    /// after `T` or a space (MSSQL), fractional seconds and `Z` or a numeric offset; ordinal dates
    /// (`2003-335`, `03-335`), 2-digit years (`03-12-31`, `031231`, `-03-12`, `-0312`), compact
    /// `20031231`, Google's `2003-012-31`, and Hungarian month names (`2004-július-13T9:15-05:00`).
    ///
    /// Five bare digits (ISO's compact `YYDDD`) are rejected: in a feed they are a number, not a date.
    static func read(_ start: DateCursor) -> DateFields? {
        var cursor = start
        if cursor.consume(UInt8(ascii: "-")) { return truncatedYearMonth(&cursor) }
        let first = cursor.digits()
        var fields: DateFields
        switch first.count {
        case 2, 4:
            let year = first.count == 4 ? first.value : DateFields.expandingTwoDigitYear(first.value)
            if cursor.isAtEnd, first.count == 4 { return DateFields(year: year, month: 1, day: 1) }
            guard cursor.consume(UInt8(ascii: "-")), let date = monthAndDay(&cursor, year: year) else { return nil }
            fields = date
        case 6:
            fields = DateFields(
                year: DateFields.expandingTwoDigitYear(first.value / 10_000), month: first.value / 100 % 100,
                day: first.value % 100)
        case 8:
            fields = DateFields(year: first.value / 10_000, month: first.value / 100 % 100, day: first.value % 100)
        default:
            return nil
        }
        guard !cursor.isAtEnd else { return fields }
        guard cursor.consumeLetter(UInt8(ascii: "t")) || (cursor.skipSpaces() > 0 && cursor.isAtDigit),
            RFC822Date.readTime(&cursor, into: &fields)
        else { return nil }
        cursor.skipSpaces()
        if !cursor.isAtEnd {
            guard let offset = DateZones.zone(&cursor, allowingUnknownNames: false) else { return nil }
            fields.utcOffset = offset
        }
        return cursor.isAtEnd ? fields : nil
    }

    /// The part after `YYYY-`: `MM`, `MM-DD`, `0MM-DD` (Google), `DDD` (ordinal) or a month name then `-DD`.
    /// A date without its day must end there.
    private static func monthAndDay(_ cursor: inout DateCursor, year: Int) -> DateFields? {
        if cursor.isAtLetter {
            guard let month = DateNames.monthNumber(cursor.word()), cursor.consume(UInt8(ascii: "-")),
                let day = cursor.number(maxCount: 2)
            else { return nil }
            return DateFields(year: year, month: month, day: day)
        }
        let run = cursor.digits()
        switch run.count {
        case 2:
            guard cursor.consume(UInt8(ascii: "-")) else {
                return cursor.isAtEnd ? DateFields(year: year, month: run.value, day: 1) : nil
            }
            guard let day = cursor.number(maxCount: 2) else { return nil }
            return DateFields(year: year, month: run.value, day: day)
        case 3 where run.value < 100 && cursor.current == UInt8(ascii: "-"):
            cursor.advance()
            guard let day = cursor.number(maxCount: 2) else { return nil }
            return DateFields(year: year, month: run.value, day: day)
        case 3:
            return DateFields.ordinal(run.value, year: year)
        default:
            return nil
        }
    }

    /// ISO 8601's `-YYMM` and `-YY-MM`, the cursor after the dash; the first of that month.
    private static func truncatedYearMonth(_ cursor: inout DateCursor) -> DateFields? {
        let first = cursor.digits()
        let year: Int
        let month: Int
        if first.count == 4 {
            year = first.value / 100
            month = first.value % 100
        } else if first.count == 2, cursor.consume(UInt8(ascii: "-")), let value = cursor.number(exactly: 2) {
            year = first.value
            month = value
        } else {
            return nil
        }
        return cursor.isAtEnd ? DateFields(year: DateFields.expandingTwoDigitYear(year), month: month, day: 1) : nil
    }
}
