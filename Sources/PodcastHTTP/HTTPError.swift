/// Why an HTTP request failed, with the URL it was for and advice a user can act on.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure; callers decide on retries and wording from it.
    public enum Kind: Sendable, Equatable {
        /// The URL is not an http(s) URL, or a redirect led to another scheme.
        case unsupportedURL
        /// The host name could not be resolved.
        case hostNotFound
        /// The host refused or could not be reached.
        case cannotConnect
        /// Connecting took too long, or the transfer stalled.
        case timedOut
        /// The TLS handshake or certificate check failed.
        case tls
        /// More redirects than allowed.
        case tooManyRedirects
        /// A redirect from https to plain http, refused.
        case insecureRedirect
        /// The connection broke before the response was complete.
        case connectionLost
        /// The server answered with a status the request does not accept.
        case status(Int)
        /// The response body was larger than this kind of request allows.
        case bodyTooLarge(limit: Int)
        /// The body's Content-Encoding could not be decoded.
        case badContentEncoding
        /// The proxy from the environment could not be used.
        case proxy
        /// Any other libcurl failure, with its code.
        case transfer(code: Int)
    }

    /// The class of failure.
    public var kind: Kind
    /// The URL the request was for.
    public var url: String
    /// What went wrong, in words (libcurl's own detail where it has one).
    public var detail: String
    /// What the user can do about it.
    public var advice: String
    /// For `.status(429)` and `.status(503)`: seconds the server asked us to wait, when it said.
    public var retryAfter: Int?

    /// Creates an error.
    public init(kind: Kind, url: String, detail: String, advice: String, retryAfter: Int? = nil) {
        self.kind = kind
        self.url = url
        self.detail = detail
        self.advice = advice
        self.retryAfter = retryAfter
    }

    /// One line: what failed, for which URL, and what to do.
    public var description: String {
        "\(detail) for \(url); \(advice)"
    }

    /// True for the statuses and network failures that are worth trying again later.
    public var isTransient: Bool {
        switch kind {
        case .hostNotFound, .cannotConnect, .timedOut, .connectionLost, .proxy:
            return true
        case .status(let code):
            return code == 408 || code == 425 || code == 429 || (500...599).contains(code)
        default:
            return false
        }
    }
}
