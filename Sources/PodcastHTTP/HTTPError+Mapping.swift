import CCurl

// The one place where libcurl result codes and HTTP statuses become errors a user can act on.
extension HTTPError {
    /// The error for a libcurl result code, using libcurl's detail text when it gave one.
    public static func curl(_ code: CURLcode, url: String, curlMessage: String, settings: HTTPSettings) -> HTTPError {
        let detail = curlMessage.isEmpty ? String(cString: curl_easy_strerror(code)) : curlMessage
        func error(_ kind: Kind, _ what: String, _ advice: String) -> HTTPError {
            HTTPError(kind: kind, url: url, detail: "\(what) (\(detail))", advice: advice)
        }
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return error(.unsupportedURL, "not a usable http(s) URL", "use an http:// or https:// address")
        case CURLE_COULDNT_RESOLVE_HOST:
            return error(.hostNotFound, "could not resolve the host", "check the address and your network connection")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return error(.proxy, "could not resolve the proxy", "check http_proxy/https_proxy in your environment")
        case CURLE_COULDNT_CONNECT:
            return error(.cannotConnect, "could not connect", "check the address, or try again when the server is up")
        case CURLE_OPERATION_TIMEDOUT:
            return error(
                .timedOut, "timed out",
                "the server did not answer within \(settings.connectTimeout) s or sent less than "
                    + "\(settings.stallSpeed) bytes/s for \(settings.stallTimeout) s; try again later")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return error(.tls, "secure connection failed", "check the system clock and CA certificates, or the server's certificate")
        case CURLE_TOO_MANY_REDIRECTS:
            return error(.tooManyRedirects, "more than \(settings.maxRedirects) redirects", "the server redirects in a loop; report it to the publisher")
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR:
            return error(.connectionLost, "the connection broke before the response was complete", "try again")
        case CURLE_BAD_CONTENT_ENCODING:
            return error(.badContentEncoding, "the compressed response could not be decoded", "try again later; the server sent a broken response")
        default:
            return error(.transfer(code: Int(code.rawValue)), "transfer failed", "try again later")
        }
    }

    /// The error for an HTTP status the request does not accept.
    public static func status(_ status: Int, url: String, retryAfter: Int?) -> HTTPError {
        let reason = HTTPStatus.reasonPhrase(status)
        let detail = reason.isEmpty ? "server answered HTTP \(status)" : "server answered \(status) \(reason)"
        let advice: String
        switch status {
        case 429:
            advice = retryAfter.map { "the server is rate limiting requests: wait \($0) s and try again" }
                ?? "the server is rate limiting requests: wait a minute and try again"
        case 401:
            // A feed's credentials are kept only for the run given them (`URLCredentials`). The
            // example is no URL: every message is redacted (`SecretRedactor`), and a URL's
            // `user:password@` would show as `***@`.
            advice = "the server wants credentials: name the feed with them in the command (user:password@ after https://), or check the ones given"
        case 403:
            advice = "the server refused access; the address may have expired or need credentials"
        case 404, 410:
            advice = "the address is gone; check it for typos or find a current one"
        case 500...599:
            advice = retryAfter.map { "the server is having trouble: try again in \($0) s" }
                ?? "the server is having trouble: try again later"
        default:
            advice = "the server refused the request"
        }
        return HTTPError(kind: .status(status), url: url, detail: detail, advice: advice, retryAfter: retryAfter)
    }

    /// The error for a body larger than the request allows.
    static func bodyTooLarge(url: String, limit: Int) -> HTTPError {
        HTTPError(
            kind: .bodyTooLarge(limit: limit), url: url,
            detail: "response larger than \(limit / (1024 * 1024)) MiB",
            advice: "this is not the kind of document expected here; check the address")
    }

    /// The error for a URL podcast will not request.
    public static func unsupportedURL(_ url: String) -> HTTPError {
        HTTPError(kind: .unsupportedURL, url: url, detail: "not an http(s) URL", advice: "use an http:// or https:// address")
    }
}
