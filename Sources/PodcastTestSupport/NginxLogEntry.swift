/// One line of `NginxServer`'s access log: an answer and the request headers that shaped it.
public struct NginxLogEntry: Sendable, Equatable {
    /// The status sent, such as 200, 206 or 416.
    public var status: Int
    /// Body bytes nginx handed to the socket (`$body_bytes_sent`); for an answer cut short by the
    /// client, what went out before it left.
    public var bodyBytesSent: Int
    /// The request target, such as `/media/1.mp3`.
    public var target: String
    /// The request's `Range` header, nil when absent.
    public var range: String?
    /// The request's `If-Range` header, nil when absent.
    public var ifRange: String?

    /// Parses `status bytes target "range" "if-range"` (the `transfer` log format); nil for other lines.
    init?(line: String) {
        let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
        let words = (quoted.first ?? "").split(separator: " ")
        guard words.count >= 3, let status = Int(words[0]), let bytes = Int(words[1]) else { return nil }
        self.status = status
        self.bodyBytesSent = bytes
        self.target = String(words[2])
        // nginx logs an absent header as "-".
        func header(_ index: Int) -> String? {
            guard quoted.count > index else { return nil }
            let value = String(quoted[index])
            return value == "-" || value.isEmpty ? nil : value
        }
        self.range = header(1)
        self.ifRange = header(3)
    }
}
