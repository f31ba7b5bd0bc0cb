import Foundation
import Synchronization

/// How many full answers (200) and not-modified answers (304) a conditional route has given:
/// the request log shows what the client asked, this what the server made of it.
public final class ConditionalAnswers: Sendable {
    private let counts = Mutex((full: 0, notModified: 0))

    /// Counters at zero.
    public init() {}

    /// Answers with the whole body.
    public var full: Int { counts.withLock { $0.full } }

    /// Answers `304 Not Modified`.
    public var notModified: Int { counts.withLock { $0.notModified } }

    func count(notModified: Bool) {
        counts.withLock { counts in
            if notModified { counts.notModified += 1 } else { counts.full += 1 }
        }
    }
}

extension ServerRoute {
    /// A document (a feed) served as a web server serves a static file: `ETag` (unless nil) and
    /// `Last-Modified` on every answer, and `304 Not Modified` without a body when the request
    /// shows that the client holds these bytes: an `If-None-Match` naming `etag` (weak
    /// comparison, or `*`), or, only when there is no `If-None-Match`, an `If-Modified-Since` not
    /// before `lastModified` (RFC 9110 §13.1.2, §13.1.3, §13.2.2). `answers` (when given) counts
    /// the 200s and 304s.
    ///
    /// Replace the route with `setRoute` to publish a new version, with a new `etag`.
    public static func conditional(
        body: Data, contentType: String = "application/rss+xml", etag: String?, lastModified: String,
        answers: ConditionalAnswers? = nil
    ) -> ServerRoute {
        let validators = (etag.map { [("ETag", $0)] } ?? []) + [("Last-Modified", lastModified)]
        return .handler { request in
            let notModified = (request.method == "GET" || request.method == "HEAD")
                && holdsCurrentVersion(request, etag: etag, lastModified: lastModified)
            answers?.count(notModified: notModified)
            if notModified { return .fixed(status: 304, body: Data(), headers: validators) }
            return .fixed(body: body, headers: [("Content-Type", contentType)] + validators)
        }
    }

    /// Whether the request's preconditions say the client has the version with these validators.
    private static func holdsCurrentVersion(_ request: RecordedRequest, etag: String?, lastModified: String) -> Bool {
        if let ifNoneMatch = request.header("If-None-Match") {
            guard let etag else { return ifNoneMatch.trimmingSpacesAndTabs() == "*" }
            let opaque = { (tag: Substring) in tag.hasPrefix("W/") ? tag.dropFirst(2) : tag }
            return ifNoneMatch.split(separator: ",").contains { listed in
                let tag = Substring(listed.trimmingSpacesAndTabs())
                return tag == "*" || opaque(tag) == opaque(Substring(etag))
            }
        }
        // A date the server cannot read is ignored (RFC 9110 §13.1.3): the whole body goes out.
        guard let since = request.header("If-Modified-Since").flatMap(Self.seconds(ofHTTPDate:)),
              let modified = Self.seconds(ofHTTPDate: lastModified)
        else { return false }
        return modified <= since
    }

    /// The seconds since 1970 of an IMF-fixdate (`Tue, 10 Nov 2026 08:00:00 GMT`), the only form a
    /// sender may generate (RFC 9110 §5.6.7); nil for anything else.
    static func seconds(ofHTTPDate text: String) -> Int? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let words = text.split(separator: " ")
        guard words.count == 6, words[5] == "GMT", let month = months.firstIndex(of: String(words[2])),
              let day = Int(words[1]), let year = Int(words[3])
        else { return nil }
        let clock = words[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(clock[0])
        parts.tm_min = Int32(clock[1])
        parts.tm_sec = Int32(clock[2])
        return Int(timegm(&parts))
    }
}
