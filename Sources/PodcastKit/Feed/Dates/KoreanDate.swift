/// The Korean date form feedparser reads (`2004-05-25 오전 11:23:17`).
enum KoreanDate {
    /// Reads the two Korean blog forms feedparser knows, both in Korea Standard Time: Nate's
    /// "2004-05-25 오후 11:23:17" (12-hour clock) and OnBlog's "2004년 05월 28일  01:31:15".
    static func read(_ start: DateCursor) -> DateFields? {
        var cursor = start
        guard let year = cursor.number(exactly: 4) else { return nil }
        var fields: DateFields
        if cursor.consume(Korean.year) {
            cursor.skipSpaces()
            guard let month = cursor.number(maxCount: 2), cursor.consume(Korean.month) else { return nil }
            cursor.skipSpaces()
            guard let day = cursor.number(maxCount: 2), cursor.consume(Korean.day) else { return nil }
            cursor.skipSpaces()
            fields = DateFields(year: year, month: month, day: day)
            guard RFC822Date.readTime(&cursor, into: &fields) else { return nil }
        } else {
            guard cursor.consume(UInt8(ascii: "-")), let month = cursor.number(exactly: 2),
                cursor.consume(UInt8(ascii: "-")), let day = cursor.number(exactly: 2), cursor.skipSpaces() > 0
            else { return nil }
            let isPM: Bool
            if cursor.consume(Korean.am) {
                isPM = false
            } else if cursor.consume(Korean.pm) {
                isPM = true
            } else {
                return nil
            }
            cursor.skipSpaces()
            fields = DateFields(year: year, month: month, day: day)
            guard RFC822Date.readTime(&cursor, into: &fields), (0...12).contains(fields.hour) else { return nil }
            fields.hour = fields.hour % 12 + (isPM ? 12 : 0)
        }
        fields.utcOffset = 9 * 3_600
        return cursor.isAtEnd ? fields : nil
    }

    private enum Korean {
        static let year: [UInt8] = Array("년".utf8)
        static let month: [UInt8] = Array("월".utf8)
        static let day: [UInt8] = Array("일".utf8)
        static let am: [UInt8] = Array("오전".utf8)
        static let pm: [UInt8] = Array("오후".utf8)
    }
}
