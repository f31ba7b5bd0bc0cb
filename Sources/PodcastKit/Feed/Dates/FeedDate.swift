import FoundationEssentials

/// Parses the dates feeds put in `pubDate`, `dc:date`, `published` and `updated`, in every form seen in the wild.
///
/// The accepted forms are those of feedparser's date sub-parsers (RFC 822 and its variants, W3C-DTF and
/// ISO 8601, asctime, perforce, and the Greek, Hungarian and Korean forms), combined into one pass that
/// reads UTF-8 bytes without regular expressions or Calendar, because it runs once per feed item.
/// Fractional seconds are dropped: feeds are ordered by the second at best.
public enum FeedDate {
    /// The instant `text` names, or nil when it is not a recognised date or a field is out of range.
    public static func parse(_ text: String) -> Date? {
        var text = text
        guard let seconds = text.withUTF8({ unixTime(utf8: $0) }) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// Seconds since 1970-01-01T00:00:00Z for the date in `utf8`, or nil.
    static func unixTime(utf8: UnsafeBufferPointer<UInt8>) -> Int? {
        let start = DateCursor(trimming: utf8)
        guard !start.isAtEnd else { return nil }
        // Each reader gives up within a few bytes on a form it does not know, so trying them in turn is cheap;
        // once one recognises the shape, its field values decide, with no second opinion from the others.
        let fields = W3CDate.read(start) ?? KoreanDate.read(start) ?? RFC822Date.read(start)
        return fields?.unixTime
    }
}
