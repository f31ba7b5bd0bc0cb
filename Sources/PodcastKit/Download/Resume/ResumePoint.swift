/// Where a transfer continues a partial file, and how the server proves it still has the same file.
public struct ResumePoint: Sendable, Equatable {
    /// Bytes of the partial file to keep; the request asks for the rest (`Range: bytes=offset-`).
    public var offset: Int64
    /// The ETag the kept bytes came with, when the server gave one.
    public var etag: String?
    /// The Last-Modified the kept bytes came with, when the server gave one.
    public var lastModified: String?
    /// The whole file's length as the server gave it, when known; a 206 or 416 must agree.
    public var total: Int64?

    /// Creates a resume point.
    public init(offset: Int64, etag: String?, lastModified: String?, total: Int64?) {
        self.offset = offset
        self.etag = etag
        self.lastModified = lastModified
        self.total = total
    }

    /// The validator sent as `If-Range`: a strong ETag, else Last-Modified (a weak ETag cannot
    /// promise the same bytes). A server whose file changed answers 200 with the whole new file
    /// instead of the rest of the old one; nil when neither was recorded (nothing to resume with).
    public var validator: String? {
        Self.validator(etag: etag, lastModified: lastModified)
    }

    /// The one rule for which validator a resume sends: a strong ETag, else Last-Modified.
    static func validator(etag: String?, lastModified: String?) -> String? {
        if let etag, etag.hasPrefix("\"") { return etag }
        return lastModified
    }
}
