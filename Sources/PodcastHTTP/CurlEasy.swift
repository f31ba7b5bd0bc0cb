import CCurl

/// One libcurl easy handle set up with podcast's defaults for every request.
///
/// Not Sendable: libcurl forbids using a handle from two threads at once, so the thread that
/// created it owns it until it is freed.
public final class CurlEasy {
    /// The libcurl easy handle, for the multi handle that drives it.
    public let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let settings: HTTPSettings
    /// Headers every hop of this request carries (conditions such as `If-Range`).
    private let requestHeaders: [String]
    /// Where the request began: the user's headers without hosts go to this server only.
    private let chainStart: String
    /// The URL now asked for: `chainStart`, or where the redirects followed so far led.
    public private(set) var url: String
    /// Redirects followed so far.
    public private(set) var redirectCount = 0
    /// Where the redirects followed so far have moved the resource for good: the target of the
    /// last of the permanent redirects (301, 308) the chain starts with; nil when it starts with
    /// none. A feed's new address.
    public private(set) var permanentTarget: String?
    private var onlyPermanentSoFar = true

    /// A handle with the defaults podcast uses on every transfer, or nil if libcurl is out of memory
    /// or refuses a safety option (a libcurl older than 7.85). `acceptEncoding` is what to ask for
    /// ("" for every encoding libcurl decodes); libcurl decodes whatever encoding arrives anyway.
    /// Redirects are not followed by libcurl: the caller asks `followRedirect()` after each answer.
    /// With `settings.cookies`, cookies are kept for the handle's redirect hops, and in `jar`
    /// (when given) for every handle that shares it.
    public init?(url: String, settings: HTTPSettings, requestHeaders: [String] = [], acceptEncoding: String = "", jar: CookieJar? = nil) {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        self.settings = settings
        self.requestHeaders = requestHeaders
        chainStart = url
        self.url = url
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)

        set(CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        // Signals are no way to time out a multi-threaded program; SIGPIPE is ignored at start-up.
        set(CURLOPT_NOSIGNAL, 1)
        // Each hop is checked by RedirectRule and gets its own headers (`followRedirect`).
        set(CURLOPT_FOLLOWLOCATION, 0)
        // A feed or a redirect must never make us read file:// or speak another protocol.
        guard set(CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK else { return nil }
        set(CURLOPT_CONNECTTIMEOUT, settings.connectTimeout)
        // Not CURLOPT_TIMEOUT: a whole-transfer limit would kill long downloads; a stall is what we catch.
        set(CURLOPT_LOW_SPEED_LIMIT, settings.stallSpeed)
        set(CURLOPT_LOW_SPEED_TIME, settings.stallTimeout)
        set(CURLOPT_USERAGENT, settings.userAgent)
        set(CURLOPT_ACCEPT_ENCODING, acceptEncoding)
        if let authorities = settings.certificateAuthorities { set(CURLOPT_CAINFO, authorities) }
        if let proxy = settings.proxy { set(CURLOPT_PROXY, proxy) }
        if settings.cookies {
            // An empty file name turns on libcurl's cookie engine without reading any file.
            set(CURLOPT_COOKIEFILE, "")
            if let jar { set(CURLOPT_SHARE, jar.handle) }
        }
        ask(url)
    }

    /// Points the handle at `url` with the headers a request there may carry.
    private func ask(_ url: String) {
        self.url = url
        HTTPTrace.note("GET \(url)")
        // Only the handle sees the run's credentials (`URLCredentials`): `url`, which messages,
        // traces and redirects are made from, stays bare.
        set(CURLOPT_URL, settings.credentials.applied(to: url))
        let list = requestHeaders + settings.headers.fields(for: url, startingAt: chainStart)
        _ = podcast_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, nil)
        curl_slist_free_all(headerList)
        headerList = nil
        for header in list {
            headerList = curl_slist_append(headerList, header)
        }
        if let headerList {
            _ = podcast_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
        }
    }

    /// What follows the answer just received: `.none` when it is no redirect (it is the answer),
    /// `.follow` when the handle now points at the redirect's target (run it again), or the error
    /// that refuses the redirect (`RedirectRule`).
    public func followRedirect() -> RedirectStep {
        traceAnswer()
        guard RedirectRule.followedStatuses.contains(responseCode), let target = redirectURL else { return .none }
        if let refusal = RedirectRule.refusal(from: url, to: target, followed: redirectCount, settings: settings) {
            return .refused(refusal)
        }
        if onlyPermanentSoFar {
            if RedirectRule.permanentStatuses.contains(responseCode) { permanentTarget = target } else { onlyPermanentSoFar = false }
        }
        redirectCount += 1
        ask(target)
        return .follow
    }

    /// Records the last answer for `--verbose`: its status, the URL and, for a redirect, where it leads.
    public func traceAnswer() {
        HTTPTrace.note(
            "\(responseCode) from \(url)"
                + (answerIsRedirect ? " → \(redirectURL ?? "")" : "")
                + (contentType.map { " (\($0))" } ?? ""))
    }

    /// What `followRedirect()` did.
    public enum RedirectStep: Equatable {
        case none
        case follow
        case refused(HTTPError)
    }

    /// True while the last answer is a redirect this handle would follow: its body is the server's
    /// note about the move, never part of what was asked for.
    public var answerIsRedirect: Bool {
        RedirectRule.followedStatuses.contains(responseCode) && redirectURL != nil
    }

    /// The absolute URL the last answer redirects to, if it does: its Location resolved against
    /// the URL asked for, as libcurl resolves it (read from the header, not CURLINFO_REDIRECT_URL,
    /// which libcurl leaves unset when the answer's body was cut short).
    private var redirectURL: String? {
        guard let location = header("location"), let resolver = curl_url() else { return nil }
        defer { curl_url_cleanup(resolver) }
        guard curl_url_set(resolver, CURLUPART_URL, url, 0) == CURLUE_OK,
            curl_url_set(resolver, CURLUPART_URL, location, UInt32(CURLU_URLENCODE)) == CURLUE_OK
        else { return nil }
        var resolved: UnsafeMutablePointer<CChar>?
        guard curl_url_get(resolver, CURLUPART_URL, &resolved, 0) == CURLUE_OK, let resolved else { return nil }
        defer { curl_free(resolved) }
        return String(cString: resolved)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Sets a long option.
    @discardableResult
    public func set(_ option: CURLoption, _ value: Int) -> CURLcode {
        podcast_curl_easy_setopt_long(handle, option, value)
    }

    /// Sets a string option (libcurl copies it).
    @discardableResult
    public func set(_ option: CURLoption, _ value: String) -> CURLcode {
        podcast_curl_easy_setopt_string(handle, option, value)
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: UnsafeMutableRawPointer?) -> CURLcode {
        podcast_curl_easy_setopt_pointer(handle, option, value)
    }

    /// Hands the body to `callback` with `userdata`, on the thread that drives the handle.
    public func setWriteFunction(_ callback: podcast_curl_data_callback, userdata: UnsafeMutableRawPointer) {
        _ = podcast_curl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, callback)
        set(CURLOPT_WRITEDATA, userdata)
    }

    /// libcurl's detail text for the last failure, or "" when it gave none.
    public var errorMessage: String {
        String(cString: errorBuffer)
    }

    /// The status of the last response in the redirect chain (0 when there was none).
    public var responseCode: Int {
        var code = 0
        _ = podcast_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The Content-Length of the last response, or nil when it had none.
    public var contentLength: Int64? {
        var length = -1
        _ = podcast_curl_easy_getinfo_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        return length >= 0 ? Int64(length) : nil
    }

    /// The Content-Type of the last response, if it had one.
    public var contentType: String? {
        var pointer: UnsafeMutablePointer<CChar>?
        guard podcast_curl_easy_getinfo_string(handle, CURLINFO_CONTENT_TYPE, &pointer) == CURLE_OK,
            let pointer
        else { return nil }
        return String(cString: pointer)
    }

    /// Seconds from the last response's `Retry-After`, or nil when absent. libcurl can report
    /// a negative value for a date in the past; that means "now".
    public var retryAfter: Int? {
        var seconds = 0
        guard podcast_curl_easy_getinfo_off_t(handle, CURLINFO_RETRY_AFTER, &seconds) == CURLE_OK,
            header("retry-after") != nil
        else { return nil }
        return max(0, seconds)
    }

    /// The value of header `name` in the last answer.
    public func header(_ name: String) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
            let found, let value = found.pointee.value
        else { return nil }
        return String(cString: value)
    }

    /// Every header of the last answer, names lower-cased.
    var headers: [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var previous: UnsafeMutablePointer<curl_header>?
        while let next = curl_easy_nextheader(handle, UInt32(CURLH_HEADER), -1, previous) {
            if let name = next.pointee.name, let value = next.pointee.value {
                result.append((String(cString: name).lowercased(), String(cString: value)))
            }
            previous = next
        }
        return result
    }
}
