import FoundationEssentials
import PodcastText

/// What narrows a selection: published since or until a date (inclusive), a title matching a
/// pattern (case-insensitive), and the newest N of what is left. Applied after the selection's
/// words, in that order.
public struct SelectionFilter: Sendable {
    /// Published at or after this instant.
    public var since: Date?
    /// Published at or before this instant.
    public var until: Date?
    /// A regular expression the title must match somewhere, ignoring case.
    public var match: String?
    /// Keep only the newest N.
    public var latest: Int?

    /// A filter of the given parts (nil: not filtered by it).
    public init(since: Date? = nil, until: Date? = nil, match: String? = nil, latest: Int? = nil) {
        self.since = since
        self.until = until
        self.match = match
        self.latest = latest
    }

    /// True when it filters nothing.
    public var isEmpty: Bool { since == nil && until == nil && match == nil && latest == nil }

    /// The items of `items` that pass, in their order. An undated item passes no date bound.
    public func apply(_ items: [ListingItem]) throws(UsageError) -> [ListingItem] {
        try narrow(items, title: \.title, published: \.published)
    }

    /// The downloaded episodes of `records` (those with a file) that pass this filter and, with
    /// `olderThanDays`, were published more than that many days before `now` (as `KeepRule`
    /// decides it: an undated one is never old enough); newest first. `delete` narrows by this
    /// one function, with or without selection words, so no filter it is given is ever dropped.
    /// The age is a bound like `--since` and `--until`: `--latest` picks among what it leaves.
    public func apply(toDownloads records: [DownloadRecord], olderThanDays: Int?, now: Date) throws(UsageError) -> [DownloadRecord] {
        var kept = records.filter { $0.state == .downloaded && $0.path != nil }
        if let days = olderThanDays {
            kept = kept.filter { KeepRule.isOlder($0.published, thanDays: days, now: now) }
        }
        return try narrow(kept, title: \.title, published: \.published).sorted { ($0.published ?? .distantPast) > ($1.published ?? .distantPast) }
    }

    /// The items that pass the date bounds and the pattern, then the newest `latest` of them, in
    /// their order.
    private func narrow<Item>(_ items: [Item], title: (Item) -> String, published: (Item) -> Date?) throws(UsageError) -> [Item] {
        let pattern = try match.map(Self.regex)
        var kept = items.filter { item in
            if let since, (published(item) ?? .distantPast) < since { return false }
            if let until, (published(item) ?? .distantFuture) > until { return false }
            if let pattern, (try? pattern.firstMatch(in: title(item))) == nil { return false }
            return true
        }
        if let latest {
            let newest = kept.indices.sorted { (published(kept[$0]) ?? .distantPast) > (published(kept[$1]) ?? .distantPast) }.prefix(latest)
            let chosen = Set(newest)
            kept = kept.indices.filter(chosen.contains).map { kept[$0] }
        }
        return kept
    }

    /// The days of `month` in `year` (Gregorian): 2026-02-30 is a mistake, not 2026-03-02.
    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `pattern` compiled, ignoring case; a bad one is a usage error naming it.
    public static func regex(_ pattern: String) throws(UsageError) -> Regex<AnyRegexOutput> {
        do {
            return try Regex(pattern).ignoresCase()
        } catch {
            throw UsageError("--match \"\(pattern)\" is not a regular expression (\(error)); escape characters such as ( [ + ?")
        }
    }

    /// The instant `text` names, for `--since` (`start`: the day's first second) or `--until`
    /// (its last): `2026-11-20`, `2026-11-20T08:00`, `2026-11-20 08:00:30`, in UTC, as listings
    /// show dates. Nil when it is none of those.
    public static func date(_ text: String, start: Bool) -> Date? {
        let bytes = Array(text.trimmingWhitespace().utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, bytes[range].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = start ? 0 : 86_399
        if bytes.count > 10 {
            guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), bytes.count == 16 || bytes.count == 19,
                let hour = number(11..<13), bytes[13] == UInt8(ascii: ":"), let minute = number(14..<16), hour < 24, minute < 60
            else { return nil }
            var second = start ? 0 : 59
            if bytes.count == 19 {
                guard bytes[16] == UInt8(ascii: ":"), let given = number(17..<19), given < 60 else { return nil }
                second = given
            }
            seconds = hour * 3600 + minute * 60 + second
        }
        // Days from the civil date (Howard Hinnant's days-from-civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + seconds))
    }
}
