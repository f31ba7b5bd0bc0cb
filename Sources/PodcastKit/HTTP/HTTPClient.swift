import CCurl

/// Plain HTTP GETs over libcurl for API answers and feeds: the whole body in memory, bounded.
///
/// Each call blocks the calling thread until the transfer ends; call it from a thread that may
/// block (the command's own thread), never from a Swift concurrency pool thread.
public struct HTTPClient: Sendable {
    /// Identity, timeouts and limits for every request.
    public var settings: HTTPSettings

    /// Creates a client with the given settings.
    public init(settings: HTTPSettings = HTTPSettings()) {
        self.settings = settings
    }

    /// Fetches `url`, following redirects, and returns the response when its status is in
    /// `accepting`; throws for every other status, for bodies over `maxBodyBytes`, and for
    /// network failures.
    public func get(
        _ url: String,
        headers: [String] = [],
        accepting: ClosedRange<Int> = 200...299,
        maxBodyBytes: Int = 32 * 1024 * 1024
    ) throws(HTTPError) -> HTTPResponse {
        guard Self.isHTTP(url) else { throw .unsupportedURL(url) }
        guard let easy = CurlEasy(url: url, settings: settings, extraHeaders: headers) else {
            throw HTTPError(kind: .transfer(code: Int(CURLE_OUT_OF_MEMORY.rawValue)), url: url,
                            detail: "libcurl could not set up a safe transfer",
                            advice: "podcast needs libcurl 7.85 or later and some free memory")
        }
        let body = BoundedBody(limit: maxBodyBytes)
        let unmanaged = Unmanaged.passRetained(body)
        defer { unmanaged.release() }
        easy.setWriteFunction(BoundedBody.write, userdata: unmanaged.toOpaque())

        let code = curl_easy_perform(easy.handle)
        let effectiveURL = easy.effectiveURL ?? url
        if body.overflowed {
            throw .bodyTooLarge(url: effectiveURL, limit: maxBodyBytes)
        }
        guard code == CURLE_OK else {
            throw .curl(code, url: effectiveURL, curlMessage: easy.errorMessage, settings: settings)
        }
        let status = easy.responseCode
        guard accepting.contains(status) else {
            throw .status(status, url: effectiveURL, retryAfter: easy.retryAfter)
        }
        return HTTPResponse(
            status: status, effectiveURL: effectiveURL, redirectCount: easy.redirectCount,
            headers: easy.headers, body: body.bytes)
    }

    /// True when `url` starts with `http://` or `https://` (any case).
    public static func isHTTP(_ url: String) -> Bool {
        let lower = url.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}

/// Collects a response body up to a limit; lives exactly as long as one transfer.
private final class BoundedBody {
    let limit: Int
    var bytes: [UInt8] = []
    var overflowed = false

    init(limit: Int) {
        self.limit = limit
    }

    /// libcurl's write callback, on the transferring thread. Returning less than it was given
    /// makes libcurl abort with CURLE_WRITE_ERROR, which `overflowed` then explains.
    static let write: podcast_curl_data_callback = { data, size, count, userdata in
        guard let data, let userdata else { return 0 }
        let body = Unmanaged<BoundedBody>.fromOpaque(userdata).takeUnretainedValue()
        let length = size * count
        guard body.bytes.count + length <= body.limit else {
            body.overflowed = true
            return 0
        }
        data.withMemoryRebound(to: UInt8.self, capacity: length) { start in
            body.bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: length))
        }
        return length
    }
}
