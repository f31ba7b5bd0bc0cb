import CCurl

/// HTTP GETs over libcurl for API answers and feeds: bodies collected in memory (bounded) or
/// streamed to a consumer as they arrive.
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
        var body: [UInt8] = []
        var response = try stream(url, headers: headers, accepting: accepting) { bytes in
            guard body.count + bytes.count <= maxBodyBytes else { return false }
            body.append(contentsOf: bytes)
            return true
        }
        if response.stoppedByConsumer {
            throw .bodyTooLarge(url: response.effectiveURL, limit: maxBodyBytes)
        }
        response.body = body
        return response
    }

    /// Fetches `url`, following redirects, handing the body to `consume` piece by piece on this
    /// thread as it arrives, only for a status in `accepting`; `consume` returns false to stop
    /// the transfer (then `stoppedByConsumer` is set, and the result has no error). `begin` is
    /// called with the response's Content-Type and URL (after redirects) before the first piece.
    /// The returned response has an empty body.
    public func stream(
        _ url: String,
        headers: [String] = [],
        accepting: ClosedRange<Int> = 200...299,
        begin: (_ contentType: String?, _ url: String) -> Void = { _, _ in },
        consume: (UnsafeRawBufferPointer) -> Bool
    ) throws(HTTPError) -> HTTPResponse {
        guard Self.isHTTP(url) else { throw .unsupportedURL(url) }
        guard let easy = CurlEasy(url: url, settings: settings, requestHeaders: headers) else {
            throw HTTPError(kind: .transfer(code: Int(CURLE_OUT_OF_MEMORY.rawValue)), url: url,
                            detail: "libcurl could not set up a safe transfer",
                            advice: "podcast needs libcurl 7.85 or later and some free memory")
        }
        return try withoutActuallyEscaping(consume) { (consume) throws(HTTPError) -> HTTPResponse in
            try withoutActuallyEscaping(begin) { (begin) throws(HTTPError) -> HTTPResponse in
                let transfer = StreamingTransfer(easy: easy, accepting: accepting, begin: begin, consume: consume)
                let unmanaged = Unmanaged.passRetained(transfer)
                defer { unmanaged.release() }
                easy.setWriteFunction(StreamingTransfer.write, userdata: unmanaged.toOpaque())
                // Each hop is one perform.
                var code = CURLE_OK
                hops: while true {
                    transfer.startHop()
                    code = curl_easy_perform(easy.handle)
                    if let note = transfer.redirectNote { code = note.hopResult(code) }
                    guard code == CURLE_OK else { break }
                    switch easy.followRedirect() {
                    case .none: break hops
                    case .refused(let error): throw error
                    case .follow: continue
                    }
                }
                let effectiveURL = easy.url
                let status = easy.responseCode
                if transfer.refusedStatus || (code == CURLE_OK && !accepting.contains(status)) {
                    throw .status(status, url: effectiveURL, retryAfter: easy.retryAfter)
                }
                guard code == CURLE_OK || (code == CURLE_WRITE_ERROR && transfer.stoppedByConsumer) else {
                    throw .curl(code, url: effectiveURL, curlMessage: easy.errorMessage, settings: settings)
                }
                var response = HTTPResponse(
                    status: status, effectiveURL: effectiveURL, redirectCount: easy.redirectCount,
                    headers: easy.headers, body: [])
                response.stoppedByConsumer = transfer.stoppedByConsumer
                return response
            }
        }
    }

    /// True when `url` starts with `http://` or `https://` (any case).
    public static func isHTTP(_ url: String) -> Bool {
        let lower = url.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}

/// One streaming transfer's state, shared with libcurl's callbacks on the transferring thread.
private final class StreamingTransfer {
    let easy: CurlEasy
    let accepting: ClosedRange<Int>
    let begin: (String?, String) -> Void
    let consume: (UnsafeRawBufferPointer) -> Bool
    private var statusChecked = false
    private(set) var refusedStatus = false
    /// The hop's body while its answer is a redirect (nil: it is not, or no body came yet).
    private(set) var redirectNote: RedirectNote?
    private(set) var stoppedByConsumer = false

    init(
        easy: CurlEasy, accepting: ClosedRange<Int>, begin: @escaping (String?, String) -> Void,
        consume: @escaping (UnsafeRawBufferPointer) -> Bool
    ) {
        self.easy = easy
        self.accepting = accepting
        self.begin = begin
        self.consume = consume
    }

    /// Forgets the last hop's answer before the next hop of a redirect chain.
    func startHop() {
        statusChecked = false
        redirectNote = nil
    }

    /// The body callback. The status is checked before the first byte is handed on, so an error
    /// page (or a redirect's note) never reaches the consumer; returning short makes libcurl stop
    /// with CURLE_WRITE_ERROR.
    static let write: podcast_curl_data_callback = { data, size, count, userdata in
        guard let data, let userdata else { return 0 }
        let transfer = Unmanaged<StreamingTransfer>.fromOpaque(userdata).takeUnretainedValue()
        let length = size * count
        if !transfer.statusChecked {
            transfer.statusChecked = true
            if transfer.easy.answerIsRedirect {
                transfer.redirectNote = RedirectNote()
            } else {
                transfer.refusedStatus = !transfer.accepting.contains(transfer.easy.responseCode)
                if !transfer.refusedStatus { transfer.begin(transfer.easy.contentType, transfer.easy.url) }
            }
        }
        if let taken = transfer.redirectNote?.drop(length) { return taken }
        guard !transfer.refusedStatus else { return 0 }
        guard transfer.consume(UnsafeRawBufferPointer(start: data, count: length)) else {
            transfer.stoppedByConsumer = true
            return 0
        }
        return length
    }
}
