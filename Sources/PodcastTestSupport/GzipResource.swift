/// A body offered with and without gzip content coding, chosen per request from Accept-Encoding.
struct GzipResource: Sendable {
    /// The body as the client should see it after decoding.
    let plain: [UInt8]
    /// The gzip member for `plain`, encoded once when the route is made.
    let encoded: [UInt8]
    /// The `Content-Type` value.
    let contentType: String

    /// Encodes `plain` up front so every request is answered with the same bytes.
    init(plain: [UInt8], contentType: String) {
        self.plain = plain
        self.encoded = Gzip.encode(plain)
        self.contentType = contentType
    }

    /// The encoded body when the client accepts gzip, the plain body otherwise.
    func response(to request: RecordedRequest) -> ServerResponse {
        // Vary tells caches the answer depends on Accept-Encoding, as a real server would.
        var fields = [("Content-Type", contentType), ("Vary", "Accept-Encoding")]
        guard Gzip.isAccepted(by: request.header("Accept-Encoding")) else {
            return .message(ResponseHead(status: 200, fields: fields), .bytes(plain[...]), .complete)
        }
        fields.append(("Content-Encoding", "gzip"))
        return .message(ResponseHead(status: 200, fields: fields), .bytes(encoded[...]), .complete)
    }
}
