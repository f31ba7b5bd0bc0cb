/// Values written without quotes or brackets: booleans, integers, floats, dates and times. The
/// bytes that can form one are cut out as a token first, then read as the kind its shape names,
/// so each byte is looked at a bounded number of times.
extension TOMLScanner {
    /// Reads the boolean, number, date or time at the next byte.
    mutating func readBareValue() throws(TOMLError) -> TOMLValue {
        let start = position
        let first = offset
        skipTokenCharacters()
        // A date may be followed by a space and a time (`1979-05-27 07:32:00`).
        if offset - first == 10, bytes[first + 4] == .minus, current == .space, peek(1)?.isDigit == true {
            advance()
            skipTokenCharacters()
        }
        let token = Array(bytes[first..<offset])
        guard let lead = token.first else { throw error("expected a value, found \(found)") }
        if token.elementsEqual("true".utf8) { return .boolean(true) }
        if token.elementsEqual("false".utf8) { return .boolean(false) }
        let text = String(decoding: token, as: UTF8.self)
        if token.count >= 5, token[4] == .minus, token[0..<4].allSatisfy(\.isDigit) {
            return try dateTime(token, text, at: start)
        }
        if token.count >= 3, token[2] == .colon, token[0..<2].allSatisfy(\.isDigit) {
            return try dateTime(token, text, at: start)
        }
        guard lead.isDigit || lead == .plus || lead == .minus || text == "inf" || text == "nan" else {
            throw error("expected a value, found \"\(text)\"; a string needs quotes", at: start)
        }
        return try number(token, text, at: start)
    }

    /// Steps over the bytes a bare value may hold: letters, digits, `_ + - . :`.
    private mutating func skipTokenCharacters() {
        while let byte = current, byte.isBareKeyCharacter || byte == .plus || byte == .dot || byte == .colon {
            advance()
        }
    }

    // MARK: Numbers

    /// An integer (decimal with an optional sign, or `0x`, `0o`, `0b`) or a float.
    private func number(_ token: [UInt8], _ text: String, at start: Position) throws(TOMLError) -> TOMLValue {
        let isSigned = token[0] == .plus || token[0] == .minus
        let isNegative = token[0] == .minus
        let unsigned = token[(isSigned ? 1 : 0)...]
        if unsigned.elementsEqual("inf".utf8) { return .float(isNegative ? -.infinity : .infinity) }
        if unsigned.elementsEqual("nan".utf8) { return .float(isNegative ? -.nan : .nan) }
        guard let first = unsigned.first, first.isDigit else { throw error("\"\(text)\" is not a number", at: start) }
        if unsigned.count > 2, first == 0x30, let radix = Self.radix(unsigned[unsigned.startIndex + 1]) {
            guard !isSigned else { throw error("\"\(text)\": only decimal integers may have a sign", at: start) }
            let digits = unsigned.dropFirst(2)
            guard Self.isDigitRun(digits, radix: radix) else { throw error("\"\(text)\" is not a valid integer", at: start) }
            return .integer(try integer(digits, radix: radix, isNegative: false, text, at: start))
        }
        if unsigned.contains(where: { $0 == .dot || $0 | 0x20 == 0x65 }) {
            return .float(try float(token, unsigned, text, at: start))
        }
        guard Self.isDigitRun(unsigned, radix: 10) else { throw error("\"\(text)\" is not a valid integer", at: start) }
        guard unsigned.count == 1 || first != 0x30 else { throw error("\"\(text)\": leading zeros are not allowed", at: start) }
        return .integer(try integer(unsigned, radix: 10, isNegative: isNegative, text, at: start))
    }

    /// The value of `digits` (underscores skipped) in `radix`; past 64 bits is an error.
    private func integer(_ digits: ArraySlice<UInt8>, radix: Int64, isNegative: Bool, _ text: String, at start: Position) throws(TOMLError) -> Int64 {
        var value: Int64 = 0
        for byte in digits where byte != .underscore {
            let digit = Int64(Self.hexValue(byte) ?? 0)
            // Accumulating towards the sign reaches Int64.min, whose magnitude Int64.max lacks.
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: radix)
            let (next, carried) = isNegative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowed, !carried else { throw error("\"\(text)\" does not fit in a 64-bit integer", at: start) }
            value = next
        }
        return value
    }

    /// A float: an integer part, then a fraction, an exponent or both, each with digits on both
    /// sides of every underscore (`1.` and `.5` are refused).
    private func float(_ token: [UInt8], _ unsigned: ArraySlice<UInt8>, _ text: String, at start: Position) throws(TOMLError) -> Double {
        let invalid = error("\"\(text)\" is not a valid float", at: start)
        let exponentMark = unsigned.firstIndex { $0 | 0x20 == 0x65 }
        let mantissa = unsigned[..<(exponentMark ?? unsigned.endIndex)]
        let point = mantissa.firstIndex(of: .dot)
        let whole = mantissa[..<(point ?? mantissa.endIndex)]
        guard Self.isDigitRun(whole, radix: 10) else { throw invalid }
        guard whole.count == 1 || whole.first != 0x30 else { throw error("\"\(text)\": leading zeros are not allowed", at: start) }
        if let point, !Self.isDigitRun(mantissa[(point + 1)...], radix: 10) { throw invalid }
        if let exponentMark {
            var exponent = unsigned[(exponentMark + 1)...]
            if let sign = exponent.first, sign == .plus || sign == .minus { exponent = exponent.dropFirst() }
            guard Self.isDigitRun(exponent, radix: 10) else { throw invalid }
        }
        guard let value = Double(String(decoding: token.lazy.filter { $0 != .underscore }, as: UTF8.self)) else { throw invalid }
        return value
    }

    /// The radix an integer prefix letter names (`x`, `o`, `b`, lower case only).
    private static func radix(_ letter: UInt8) -> Int64? {
        switch letter {
        case 0x78: 16
        case 0x6F: 8
        case 0x62: 2
        default: nil
        }
    }

    /// Whether `run` is digits of `radix` with single underscores between digits only.
    private static func isDigitRun(_ run: ArraySlice<UInt8>, radix: Int64) -> Bool {
        guard let first = run.first, let last = run.last, first != .underscore, last != .underscore else { return false }
        var previous: UInt8 = 0
        for byte in run {
            if byte == .underscore {
                guard previous != .underscore else { return false }
            } else {
                guard let digit = hexValue(byte), Int64(digit) < radix else { return false }
            }
            previous = byte
        }
        return true
    }

    // MARK: Dates and times

    /// An offset date-time, local date-time, local date or local time, its fields in range.
    private func dateTime(_ token: [UInt8], _ text: String, at start: Position) throws(TOMLError) -> TOMLValue {
        let invalid = error("\"\(text)\" is not a valid date or time", at: start)
        guard token[2] != .colon else {
            guard let time = try self.time(token, from: 0, text, at: start), time.end == token.count else { throw invalid }
            return .localTime(time.value)
        }
        guard token.count >= 10, let year = Self.field(token, 0, 4), let month = Self.field(token, 5, 2),
            token[7] == .minus, let day = Self.field(token, 8, 2)
        else { throw invalid }
        guard (1...12).contains(month) else { throw error("\"\(text)\": there is no month \(month)", at: start) }
        guard day >= 1, day <= TOMLLocalDate.days(inMonth: month, of: year) else {
            throw error("\"\(text)\": month \(month) of \(year) has no day \(day)", at: start)
        }
        let date = TOMLLocalDate(year: year, month: month, day: day)
        guard token.count > 10 else { return .localDate(date) }
        guard [0x54, 0x74, .space].contains(token[10]), let time = try self.time(token, from: 11, text, at: start) else {
            throw invalid
        }
        let local = TOMLLocalDateTime(date: date, time: time.value)
        let end = time.end
        let offset = token[end...]
        if offset.isEmpty { return .localDateTime(local) }
        if offset.count == 1, offset.first.map({ $0 | 0x20 }) == 0x7A { return .offsetDateTime(TOMLOffsetDateTime(local: local, offsetMinutes: 0)) }
        guard offset.count == 6, let sign = offset.first, sign == .plus || sign == .minus,
            let hours = Self.field(token, end + 1, 2), token[end + 3] == .colon, let minutes = Self.field(token, end + 4, 2)
        else { throw invalid }
        guard hours <= 23, minutes <= 59 else { throw error("\"\(text)\": the offset is out of range", at: start) }
        let size = hours * 60 + minutes
        return .offsetDateTime(TOMLOffsetDateTime(local: local, offsetMinutes: sign == .minus ? -size : size))
    }

    /// `HH:MM:SS[.fraction]` at `index`, with the index past it; nil if it is not one.
    private func time(_ token: [UInt8], from index: Int, _ text: String, at start: Position) throws(TOMLError) -> (value: TOMLLocalTime, end: Int)? {
        guard token.count >= index + 8, let hour = Self.field(token, index, 2), token[index + 2] == .colon,
            let minute = Self.field(token, index + 3, 2), token[index + 5] == .colon, let second = Self.field(token, index + 6, 2)
        else { return nil }
        guard hour <= 23, minute <= 59, second <= 60 else { throw error("\"\(text)\": the time is out of range", at: start) }
        var end = index + 8
        var nanosecond = 0
        if end < token.count, token[end] == .dot {
            end += 1
            let digitsStart = end
            while end < token.count, token[end].isDigit { end += 1 }
            guard end > digitsStart else { return nil }
            // Digits past the ninth are finer than a nanosecond: dropped, as the specification allows.
            for position in digitsStart..<(digitsStart + 9) {
                nanosecond = nanosecond * 10 + (position < end ? Int(token[position] - 0x30) : 0)
            }
        }
        return (TOMLLocalTime(hour: hour, minute: minute, second: second, nanosecond: nanosecond), end)
    }

    /// The decimal number in `token[index..<index + count]`, nil unless all are digits.
    private static func field(_ token: [UInt8], _ index: Int, _ count: Int) -> Int? {
        guard index + count <= token.count else { return nil }
        var value = 0
        for byte in token[index..<(index + count)] {
            guard byte.isDigit else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}
