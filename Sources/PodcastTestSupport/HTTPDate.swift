import Glibc

/// The IMF-fixdate format of the Date header (RFC 9110 §5.6.7).
enum HTTPDate {
    /// The current time, such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return format(parts)
    }

    /// Formats broken-down UTC time; names are spelled out here because `strftime` would follow the process locale.
    static func format(_ parts: tm) -> String {
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(day), \(twoDigits(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
