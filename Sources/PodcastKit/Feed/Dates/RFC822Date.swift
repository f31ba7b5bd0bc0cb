/// The RFC 822 family of feed dates (`pubDate`): RFC 1123 and its variants, asctime and perforce.
enum RFC822Date {
    /// Reads RFC 822/1123 dates and the variants feeds write: optional or foreign weekday, "Fri,24",
    /// 1-digit day, 2-digit year, long month names, stray commas, no seconds, no time, month before day
    /// ("Thu Aug 30 2012 17:26:16 +0200"), asctime ("Sun Jan  4 16:29:06 2004", also with a zone before the
    /// year as Twitter writes it) and perforce ("Fri, 2006/09/15 08:19:53 EDT").
    static func read(_ start: DateCursor) -> DateFields? {
        var cursor = start
        skipDayName(&cursor)
        if cursor.isAtDigit {
            let first = cursor.digits()
            if first.count == 4, cursor.current == UInt8(ascii: "/") { return perforce(year: first.value, &cursor) }
            guard (1...2).contains(first.count) else { return nil }
            skipDateSeparators(&cursor)
            guard let month = DateNames.monthNumber(cursor.word()) else { return nil }
            skipDateSeparators(&cursor)
            guard let year = year(&cursor) else { return nil }
            var fields = DateFields(year: year, month: month, day: first.value)
            return readTimeAndZone(&cursor, into: &fields) ? fields : nil
        }

        guard let month = DateNames.monthNumber(cursor.word()) else { return nil }
        skipDateSeparators(&cursor)
        guard let day = cursor.number(maxCount: 2) else { return nil }
        cursor.skipSeparators()
        if isAtTime(cursor) {
            var fields = DateFields(year: 0, month: month, day: day)
            guard readTime(&cursor, into: &fields) else { return nil }
            cursor.skipSeparators()
            if !cursor.isAtDigit {
                guard let offset = DateZones.zone(&cursor, allowingUnknownNames: true) else { return nil }
                fields.utcOffset = offset
                cursor.skipSeparators()
            }
            guard let year = cursor.number(exactly: 4), cursor.isAtEnd else { return nil }
            fields.year = year
            return fields
        }
        guard let year = year(&cursor) else { return nil }
        var fields = DateFields(year: year, month: month, day: day)
        return readTimeAndZone(&cursor, into: &fields) ? fields : nil
    }

    /// Reads `h:mm`, `h:mm:ss` or `h:mm:ss.fff` (1 or 2 digits each) into `fields`, dropping the fraction.
    static func readTime(_ cursor: inout DateCursor, into fields: inout DateFields) -> Bool {
        guard let hour = cursor.number(maxCount: 2), cursor.consume(UInt8(ascii: ":")),
            let minute = cursor.number(maxCount: 2)
        else { return false }
        fields.hour = hour
        fields.minute = minute
        fields.second = 0
        guard cursor.consume(UInt8(ascii: ":")) else { return true }
        guard let second = cursor.number(maxCount: 2) else { return false }
        fields.second = second
        if cursor.current == UInt8(ascii: ".") || cursor.current == UInt8(ascii: ","),
            cursor.peek(1).map(DateCursor.isDigit) == true
        {
            cursor.advance()
            _ = cursor.digits()
        }
        return true
    }

    /// Reads `hhmm` before a space or the end, as in the RSS 0.92 sample's "03 Apr 02 1500 GMT".
    private static func readColonlessTime(_ cursor: inout DateCursor, into fields: inout DateFields) -> Bool {
        var probe = cursor
        guard let time = probe.number(exactly: 4), probe.skipSpaces() > 0 || probe.isAtEnd else { return false }
        fields.hour = time / 100
        fields.minute = time % 100
        fields.second = 0
        cursor = probe
        return true
    }

    /// Perforce's "2006/09/15 08:19:53 EDT", the cursor just after the year.
    private static func perforce(year: Int, _ cursor: inout DateCursor) -> DateFields? {
        guard cursor.consume(UInt8(ascii: "/")), let month = cursor.number(maxCount: 2),
            cursor.consume(UInt8(ascii: "/")), let day = cursor.number(maxCount: 2)
        else { return nil }
        var fields = DateFields(year: year, month: month, day: day)
        return readTimeAndZone(&cursor, into: &fields) ? fields : nil
    }

    /// Reads what may follow the date: nothing, or a time with an optional AM/PM, zone and
    /// parenthesised comment ("(PST)"); true when that reaches the end.
    private static func readTimeAndZone(_ cursor: inout DateCursor, into fields: inout DateFields) -> Bool {
        cursor.skipSeparators()
        if cursor.isAtEnd { return true }
        var probe = cursor
        if readTime(&probe, into: &fields) {
            cursor = probe
        } else {
            guard readColonlessTime(&cursor, into: &fields) else { return false }
        }
        cursor.skipSeparators()
        guard readMeridiem(&cursor, into: &fields) else { return false }
        if cursor.isAtEnd { return true }
        if !cursor.consume(UInt8(ascii: "(")) {
            guard let offset = DateZones.zone(&cursor, allowingUnknownNames: true) else { return false }
            fields.utcOffset = offset
            cursor.skipSpaces()
            guard cursor.consume(UInt8(ascii: "(")) else { return cursor.isAtEnd }
        }
        // A comment runs to the closing parenthesis and must end the date.
        while let byte = cursor.current, byte != UInt8(ascii: ")") { cursor.advance() }
        guard cursor.consume(UInt8(ascii: ")")) else { return false }
        cursor.skipSpaces()
        return cursor.isAtEnd
    }

    /// Applies a 12-hour clock's "AM"/"PM" when one follows the time; false when the hour cannot be one.
    private static func readMeridiem(_ cursor: inout DateCursor, into fields: inout DateFields) -> Bool {
        var probe = cursor
        let word = probe.word()
        let isAM = DateNames.Names.equalsIgnoringASCIICase(word, Meridiem.am)
        let isPM = DateNames.Names.equalsIgnoringASCIICase(word, Meridiem.pm)
        guard isAM || isPM else { return true }
        guard (1...12).contains(fields.hour) else { return false }
        fields.hour = fields.hour % 12 + (isPM ? 12 : 0)
        cursor = probe
        cursor.skipSeparators()
        return true
    }

    private enum Meridiem {
        static let am: [UInt8] = Array("am".utf8)
        static let pm: [UInt8] = Array("pm".utf8)
    }

    /// Skips a leading weekday: a known name, or any other word followed by a comma ("Seg," in
    /// Portuguese feeds), unless that word is a month.
    private static func skipDayName(_ cursor: inout DateCursor) {
        guard cursor.isAtLetter else { return }
        var probe = cursor
        let word = probe.word()
        guard DateNames.isDayName(word) || (probe.current == UInt8(ascii: ",") && DateNames.monthNumber(word) == nil) else { return }
        cursor = probe
        cursor.skipSeparators()
    }

    /// Skips what separates day, month and year: white space, commas, and the dashes of "01-Jan-2004".
    private static func skipDateSeparators(_ cursor: inout DateCursor) {
        while cursor.skipSeparators() > 0 || cursor.consume(UInt8(ascii: "-")) {}
    }

    /// A 4-digit year, or a 2-digit one expanded.
    private static func year(_ cursor: inout DateCursor) -> Int? {
        let run = cursor.digits()
        switch run.count {
        case 4: return run.value
        case 2: return DateFields.expandingTwoDigitYear(run.value)
        default: return nil
        }
    }

    /// True when the cursor is at digits followed by a colon: a time rather than a year.
    private static func isAtTime(_ cursor: DateCursor) -> Bool {
        var probe = cursor
        return probe.number(maxCount: 2) != nil && probe.current == UInt8(ascii: ":")
    }
}
