/// Month and day names in the languages feeds write them in.
enum DateNames {
    /// The month a month name denotes: English names and any abbreviation of them ("Sep", "Sept.",
    /// "September"), the three-letter abbreviations of Portuguese, Spanish and German feeds, and the
    /// Greek and Hungarian names feedparser knows.
    static func monthNumber(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
        let name = Names.droppingTrailingPeriod(word)
        guard name.count >= 3 else { return nil }
        // Plain loops rather than closures: this runs for every item, in debug builds too.
        if name[0] < 0x80 && name[1] < 0x80 && name[2] < 0x80 {
            let months = Names.englishMonths
            for index in 0..<months.count where Names.isAbbreviation(name, of: months[index]) { return index + 1 }
            guard name.count == 3 else { return nil }
            let others = Names.otherMonthAbbreviations
            for index in 0..<others.count where Names.equalsIgnoringASCIICase(name, others[index].name) {
                return others[index].month
            }
            return nil
        }
        let months = Names.nonLatinMonths
        for index in 0..<months.count where Names.equalsIgnoringASCIICase(name, months[index].name) {
            return months[index].month
        }
        return nil
    }

    /// True for an English weekday name or abbreviation ("Thu", "Thurs", "Thursday") or a Greek one.
    static func isDayName(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        let name = Names.droppingTrailingPeriod(word)
        guard name.count >= 3 else { return false }
        let english = Names.englishDays
        for index in 0..<english.count where Names.isAbbreviation(name, of: english[index]) { return true }
        let greek = Names.greekDays
        for index in 0..<greek.count where Names.equalsIgnoringASCIICase(name, greek[index]) { return true }
        return false
    }

    /// Month and day names as lowercase UTF-8, compared against the bytes of a date in place.
    enum Names {
        static let englishMonths: [[UInt8]] = [
            "january", "february", "march", "april", "may", "june",
            "july", "august", "september", "october", "november", "december",
        ].map { Array($0.utf8) }

        /// Only exact three-letter forms, so a longer word in another language is never misread.
        static let otherMonthAbbreviations: [(name: [UInt8], month: Int)] = [
            ("fev", 2), ("abr", 4), ("mai", 5), ("ago", 8), ("set", 9), ("out", 10), ("dez", 12),  // Portuguese
            ("ene", 1), ("dic", 12),  // Spanish (the rest match English or Portuguese)
            ("mrz", 3), ("okt", 10),  // German
        ].map { (Array($0.0.utf8), $0.1) }

        static let nonLatinMonths: [(name: [UInt8], month: Int)] = [
            // Greek, feedparser's spellings (including its "Μάώ"/"Μαώ" for March) and the usual "Μαρ".
            ("Ιαν", 1), ("Φεβ", 2), ("Μάώ", 3), ("Μαώ", 3), ("Μάρ", 3), ("Μαρ", 3), ("Απρ", 4),
            ("Μάι", 5), ("Μαϊ", 5), ("Μαι", 5), ("Ιούν", 6), ("Ιον", 6), ("Ιούλ", 7), ("Ιολ", 7),
            ("Αύγ", 8), ("Αυγ", 8), ("Σεπ", 9), ("Οκτ", 10), ("Νοέ", 11), ("Νοε", 11), ("Δεκ", 12),
            // Hungarian, with feedparser's "februári" and "máujus" beside the correct spellings.
            ("január", 1), ("február", 2), ("februári", 2), ("március", 3), ("április", 4),
            ("május", 5), ("máujus", 5), ("június", 6), ("július", 7), ("augusztus", 8),
            ("szeptember", 9), ("október", 10), ("november", 11), ("december", 12),
        ].map { (Array($0.0.utf8), $0.1) }

        static let englishDays: [[UInt8]] = [
            "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        ].map { Array($0.utf8) }

        static let greekDays: [[UInt8]] = ["Κυρ", "Δευ", "Τρι", "Τετ", "Πεμ", "Παρ", "Σαβ"].map { Array($0.utf8) }

        static func droppingTrailingPeriod(_ word: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
            guard word.last == UInt8(ascii: ".") else { return word }
            return UnsafeBufferPointer(rebasing: word.dropLast())
        }

        /// True when `name` is at least three letters and begins `full`, ignoring ASCII case.
        static func isAbbreviation(_ name: UnsafeBufferPointer<UInt8>, of full: [UInt8]) -> Bool {
            name.count >= 3 && name.count <= full.count && startsIgnoringASCIICase(full, with: name)
        }

        /// Byte equality with ASCII letters folded to lowercase; `lowercase` must already be lowercase ASCII
        /// where it is ASCII.
        static func equalsIgnoringASCIICase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: [UInt8]) -> Bool {
            bytes.count == lowercase.count && startsIgnoringASCIICase(lowercase, with: bytes)
        }

        /// True when `lowercase` begins with `bytes`, ASCII letters in `bytes` folded; `bytes` must not be longer.
        private static func startsIgnoringASCIICase(
            _ lowercase: [UInt8], with bytes: UnsafeBufferPointer<UInt8>
        ) -> Bool {
            var index = 0
            while index < bytes.count {
                if lowercased(bytes[index]) != lowercase[index] { return false }
                index += 1
            }
            return true
        }

        static func lowercased(_ byte: UInt8) -> UInt8 {
            byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
        }
    }
}
