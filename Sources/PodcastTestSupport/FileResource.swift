/// A static resource served the way a CDN serves an episode: validators, single ranges, HEAD.
struct FileResource: Sendable {
    /// The bytes of the whole file.
    let body: [UInt8]
    /// The `Content-Type` value.
    let contentType: String
    /// The entity tag, quotes included, such as `"v1"` or `W/"v1"`.
    let etag: String?
    /// The `Last-Modified` value, an HTTP date.
    let lastModified: String?

    /// The response to a GET or HEAD: 200, 206 or 416.
    func response(to request: RecordedRequest) -> ServerResponse {
        var fields: [(String, String)] = [("Accept-Ranges", "bytes")]
        if let etag { fields.append(("ETag", etag)) }
        if let lastModified { fields.append(("Last-Modified", lastModified)) }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "method not allowed\n", fields: [("Allow", "GET, HEAD")])
        }
        let contentFields = [("Content-Type", contentType)] + fields
        guard let rangeHeader = request.header("Range"),
              ifRangeHolds(request.header("If-Range")),
              let range = RangeRequest(header: rangeHeader)
        else {
            return .message(ResponseHead(status: 200, fields: contentFields), .bytes(body[...]), .complete)
        }
        switch range.resolve(length: body.count) {
        case .satisfiable(let offsets):
            let contentRange = "bytes \(offsets.lowerBound)-\(offsets.upperBound - 1)/\(body.count)"
            return .message(
                ResponseHead(status: 206, fields: contentFields + [("Content-Range", contentRange)]),
                .bytes(body[offsets]),
                .complete
            )
        case .unsatisfiable:
            return .text(416, "range not satisfiable\n", fields: fields + [("Content-Range", "bytes */\(body.count)")])
        }
    }

    /// Whether a Range may be honoured given the request's `If-Range` (RFC 9110 §13.1.5).
    ///
    /// A mismatch means "the file changed since you got your part": send it all again.
    private func ifRangeHolds(_ ifRange: String?) -> Bool {
        guard let validator = ifRange?.trimmingSpacesAndTabs() else { return true }
        if validator.hasPrefix("\"") || validator.hasPrefix("W/") {
            // Strong comparison: a weak tag on either side never matches.
            guard let etag, !etag.hasPrefix("W/") else { return false }
            return validator == etag
        }
        // A date matches only if it is exactly the current Last-Modified; any other date means the file may have changed.
        guard let lastModified else { return false }
        return validator == lastModified.trimmingSpacesAndTabs()
    }
}
