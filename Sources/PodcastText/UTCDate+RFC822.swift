import FoundationEssentials

extension UTCDate {
    /// `Fri, 20 Nov 2026 08:00:00 GMT`: the RFC 822 date (with RFC 1123's four-digit year) that
    /// OPML's `dateCreated` and RSS dates use. Names are English whatever the locale.
    public static func rfc822(_ date: Date) -> String {
        let (year, month, day, seconds) = civil(date)
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        // 1 January 1970 was a Thursday.
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        let monthName = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][month - 1]
        return "\(weekday), \(pad(day, 2)) \(monthName) \(pad(year, 4)) "
            + "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)) GMT"
    }
}
