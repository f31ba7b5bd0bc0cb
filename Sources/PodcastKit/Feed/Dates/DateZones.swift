/// Time zones in feed dates: numeric offsets and the names feeds use.
enum DateZones {
    /// Reads a zone at the cursor and returns its offset in seconds east of UTC: `+hhmm`, `+hh:mm`, `+hh`,
    /// `GMT+hh:mm`, `UTC-5`, `Etc/GMT`, or an abbreviation. An unknown abbreviation means UTC when
    /// `allowingUnknownNames` (feedparser's rule for RFC 822 dates, and RFC 5322's for military letters);
    /// otherwise it is rejected.
    static func zone(_ cursor: inout DateCursor, allowingUnknownNames: Bool) -> Int? {
        if cursor.current == UInt8(ascii: "+") || cursor.current == UInt8(ascii: "-") {
            return numericOffset(&cursor)
        }
        guard cursor.isAtLetter else { return nil }
        var name = cursor.word()
        // tz database names: "Etc/GMT" is UTC, and "Etc/GMT+5" is five hours *west* (POSIX signs).
        let isEtc = name.count > 4
            && DateNames.Names.equalsIgnoringASCIICase(UnsafeBufferPointer(rebasing: name.prefix(4)), Zones.etc)
        if isEtc { name = UnsafeBufferPointer(rebasing: name.dropFirst(4)) }
        let key = Zones.key(name)
        if let key, Zones.isUTC(key), cursor.current == UInt8(ascii: "+") || cursor.current == UInt8(ascii: "-") {
            guard let offset = numericOffset(&cursor) else { return nil }
            return isEtc ? -offset : offset
        }
        if let minutes = key.flatMap({ Zones.abbreviations[$0] }) { return minutes * 60 }
        return allowingUnknownNames ? 0 : nil
    }

    /// Reads `+hhmm`, `-hh:mm`, `+hmm`, `+hh` or `+h` and returns seconds east of UTC.
    ///
    /// Like feedparser, the hours and minutes are not range-checked: Apple's sample feed, copied by many,
    /// writes "+3000", and a date off by a day beats no date. Offsets that push the instant past year 9999
    /// are still rejected, with the other fields.
    static func numericOffset(_ cursor: inout DateCursor) -> Int? {
        let sign: Int
        if cursor.consume(UInt8(ascii: "+")) {
            sign = 1
        } else if cursor.consume(UInt8(ascii: "-")) {
            sign = -1
        } else {
            return nil
        }
        let run = cursor.digits()
        let hours: Int
        var minutes = 0
        switch run.count {
        case 1, 2:
            hours = run.value
            if cursor.consume(UInt8(ascii: ":")) {
                guard let value = cursor.number(exactly: 2) else { return nil }
                minutes = value
            }
        case 3, 4:
            hours = run.value / 100
            minutes = run.value % 100
        default:
            return nil
        }
        return sign * (hours * 3_600 + minutes * 60)
    }

    /// Zone abbreviations found in feeds, in minutes east of UTC. Ambiguous ones (IST: India, Ireland
    /// or Israel) are left out, so they read as UTC, as feedparser reads them.
    enum Zones {
        static let etc: [UInt8] = Array("etc/".utf8)

        static let abbreviations: [UInt64: Int] = {
            let table: [(String, Int)] = [
                ("z", 0), ("ut", 0), ("utc", 0), ("gmt", 0), ("wet", 0),
                ("west", 60), ("bst", 60), ("cet", 60), ("met", 60), ("mez", 60), ("wat", 60),
                ("cest", 120), ("mest", 120), ("mesz", 120), ("eet", 120), ("sast", 120), ("cat", 120),
                ("eest", 180), ("msk", 180), ("eat", 180),
                ("awst", 480), ("hkt", 480), ("sgt", 480), ("jst", 540), ("kst", 540),
                ("acst", 570), ("acdt", 630), ("aest", 600), ("aedt", 660), ("nzst", 720), ("nzdt", 780),
                // North America, with the bare "AT/ET/CT/MT/PT" some publishers write, read as standard time
                // as feedparser reads them.
                ("nst", -210), ("ndt", -150),
                ("adt", -180), ("ast", -240), ("at", -240),
                ("edt", -240), ("est", -300), ("et", -300),
                ("cdt", -300), ("cst", -360), ("ct", -360),
                ("mdt", -360), ("mst", -420), ("mt", -420),
                ("pdt", -420), ("pst", -480), ("pt", -480),
                ("akdt", -480), ("akst", -540), ("hadt", -540), ("hast", -600), ("hst", -600),
                ("brst", -120), ("brt", -180), ("art", -180),
            ]
            var keyed: [UInt64: Int] = [:]
            for (name, minutes) in table {
                if let key = key(of: name) { keyed[key] = minutes }
            }
            return keyed
        }()

        /// The name's ASCII letters lowercased and packed into an integer, or nil when it is longer
        /// than any abbreviation or holds other bytes: a lookup that allocates nothing.
        static func key(_ name: UnsafeBufferPointer<UInt8>) -> UInt64? {
            guard (1...8).contains(name.count) else { return nil }
            var key: UInt64 = 0
            for byte in name {
                let lower = DateNames.Names.lowercased(byte)
                guard lower &- UInt8(ascii: "a") < 26 else { return nil }
                key = key << 8 | UInt64(lower)
            }
            return key
        }

        static func key(of name: String) -> UInt64? {
            Array(name.utf8).withUnsafeBufferPointer(key)
        }

        /// True for the names that may carry an explicit offset, as in "GMT+01:00".
        static func isUTC(_ key: UInt64) -> Bool { key == ut || key == utc || key == gmt }

        private static let ut = key(of: "ut")
        private static let utc = key(of: "utc")
        private static let gmt = key(of: "gmt")
    }
}
