/// A complete HTTP response whose body was read into memory (API answers and feeds, not media).
public struct HTTPResponse: Sendable {
    /// The status code of the last response in the redirect chain.
    public var status: Int
    /// The URL that answered, after redirects.
    public var effectiveURL: String
    /// How many redirects were followed.
    public var redirectCount: Int
    /// Response headers of the last response, names lower-cased, in arrival order.
    public var headers: [(name: String, value: String)]
    /// The body, decoded from any Content-Encoding (empty for a streamed response).
    public var body: [UInt8]
    /// True when a streaming consumer stopped the transfer before the body ended.
    public var stoppedByConsumer = false

    /// Creates a response.
    public init(status: Int, effectiveURL: String, redirectCount: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.effectiveURL = effectiveURL
        self.redirectCount = redirectCount
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }
}
