/// The request line and header fields of one HTTP/1.x request, as received.
struct HTTPRequestHead {
    /// The method token, such as `GET` or `HEAD`.
    var method: String
    /// The request target as sent: path plus query.
    var target: String
    /// The minor version of HTTP/1.x; 0 changes the keep-alive default.
    var minorVersion: Int
    /// Header fields in arrival order, names lowercased.
    var fields: [(name: String, value: String)]

    /// Parses the bytes before the blank line; nil when the head is malformed (the server answers 400).
    init?(parsing bytes: some Collection<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        guard let requestLine = lines.popFirst() else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
              parts[2].hasPrefix("HTTP/1."), let minor = Int(parts[2].dropFirst("HTTP/1.".count))
        else { return nil }
        method = String(parts[0])
        target = Self.originForm(of: String(parts[1]))
        minorVersion = minor
        fields = []
        for line in lines where !line.isEmpty {
            // Obsolete line folding is forbidden in requests (RFC 9112 §5.2), so a leading space is an error.
            guard let colon = line.firstIndex(of: ":"), line.first != " ", line.first != "\t" else { return nil }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
            let value = line[line.index(after: colon)...].trimmingSpacesAndTabs()
            fields.append((name.lowercased(), value))
        }
        if case .invalid = contentLength { return nil }
    }

    /// Header values by lowercased name; repeated fields are joined with ", " as RFC 9110 §5.3 allows.
    var headers: [String: String] {
        fields.reduce(into: [:]) { result, field in
            if let existing = result[field.name] {
                result[field.name] = existing + ", " + field.value
            } else {
                result[field.name] = field.value
            }
        }
    }

    /// The declared request body length.
    enum ContentLength: Equatable {
        case absent
        case length(Int)
        case invalid
    }

    /// The `Content-Length` of the request body; differing repeated values are invalid (request smuggling guard).
    var contentLength: ContentLength {
        let values = fields.filter { $0.name == "content-length" }
            .flatMap { $0.value.split(separator: ",").map { $0.trimmingSpacesAndTabs() } }
        guard let first = values.first else { return .absent }
        guard values.allSatisfy({ $0 == first }), !first.isEmpty, first.allSatisfy(\.isASCIIDigit),
              let length = Int(first)
        else { return .invalid }
        return .length(length)
    }

    /// Whether the request carries a body framed some other way than Content-Length, which the server does not read.
    var hasTransferCoding: Bool {
        fields.contains { $0.name == "transfer-encoding" }
    }

    /// Whether the client waits for `100 Continue` before sending its body.
    var expectsContinue: Bool {
        fields.contains { $0.name == "expect" && $0.value.lowercased() == "100-continue" }
    }

    /// Whether the client is willing to send another request on this connection after the response.
    var wantsKeepAlive: Bool {
        let options = fields.filter { $0.name == "connection" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingSpacesAndTabs() } }
        if options.contains("close") { return false }
        // HTTP/1.0 closes by default; HTTP/1.1 keeps the connection unless told otherwise.
        return minorVersion >= 1 || options.contains("keep-alive")
    }

    /// Reduces an absolute-form target (`http://host/path`) to the path and query the routes are keyed by.
    private static func originForm(of target: String) -> String {
        guard let schemeEnd = target.range(of: "://") else { return target }
        let afterAuthority = target[schemeEnd.upperBound...].drop { $0 != "/" && $0 != "?" }
        if afterAuthority.isEmpty { return "/" }
        return afterAuthority.first == "?" ? "/" + afterAuthority : String(afterAuthority)
    }
}

extension StringProtocol {
    /// The text without the spaces and tabs HTTP calls optional whitespace.
    func trimmingSpacesAndTabs() -> String {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isOWS).reversed().drop(while: isOWS).reversed())
    }
}

extension Character {
    /// Whether this is one of the ten ASCII digits, unlike `isNumber`, which accepts any script's digits.
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
