/// What a download's partial file is worth to a later run: where it is, what of it is on disk,
/// and the server's proof of which file its bytes are part of. Kept in the download's record and
/// written with it, so the file and the record agree at every instant (data synced first).
public struct ResumeRecord: Sendable, Equatable {
    /// The partial file.
    public var partialPath: String?
    /// The ETag the bytes came with.
    public var etag: String?
    /// The Last-Modified the bytes came with.
    public var lastModified: String?
    /// The whole file's length, as the server gave it.
    public var total: Int64?
    /// Bytes of the partial file made durable (`fdatasync`) before the record was written: after
    /// a reboot, only these are trusted.
    public var durableBytes: Int64 = 0
    /// The boot in which the partial file was written: in the same boot (after a kill -9) every
    /// byte in the file is trusted, since the page cache still holds it.
    public var dataBoot: String?

    /// Nothing known yet.
    public init() {}

    /// The validator to resume with: a strong ETag, else Last-Modified (a weak ETag cannot
    /// promise the same bytes, so `If-Range` never carries one).
    public var validator: String? {
        ResumePoint.validator(etag: etag, lastModified: lastModified)
    }

    /// Where a new attempt continues a partial file holding `offset` trusted bytes; nil when no
    /// validator can prove the server still has the same file.
    func point(at offset: Int64) -> ResumePoint? {
        guard offset > 0, validator != nil else { return nil }
        return ResumePoint(offset: offset, etag: etag, lastModified: lastModified, total: total)
    }
}
