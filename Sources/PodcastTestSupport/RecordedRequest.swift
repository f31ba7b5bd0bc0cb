/// One request the server received, kept so tests can assert what the client sent.
public struct RecordedRequest: Sendable, Equatable {
    /// Position in arrival order across the whole server, counting from 0.
    public let index: Int
    /// Which accepted connection carried the request, counting from 0; equal values mean the client reused a connection.
    public let connection: Int
    /// The method, such as `GET` or `HEAD`.
    public let method: String
    /// The path and query exactly as sent, such as `/search?term=foo&media=podcast`.
    public let target: String
    /// Header values keyed by lowercased name; repeated fields are joined with ", ".
    public let headers: [String: String]

    /// Creates a record; the server makes these, tests may build them to drive a `handler` route directly.
    public init(index: Int, connection: Int, method: String, target: String, headers: [String: String]) {
        self.index = index
        self.connection = connection
        self.method = method
        self.target = target
        self.headers = headers
    }

    /// The path without the query string: the key routes are looked up by.
    public var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The query string without its `?`, or nil when the target has none.
    public var query: String? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: mark)...])
    }

    /// The value of the header named `name`, in any letter case.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
