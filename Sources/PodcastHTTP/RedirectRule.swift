/// Which redirects podcast follows. libcurl's own following is off: it would carry every header
/// to whatever host a redirect names and take a step down from https to http silently, so each
/// hop is asked here first (and `RequestHeaders` decides what it carries, `RedirectNote` what
/// becomes of its body).
enum RedirectRule {
    /// The statuses that send a GET elsewhere; any other 3xx is an answer, not a redirect.
    static let followedStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Statuses that say the resource has moved for good.
    static let permanentStatuses: Set<Int> = [301, 308]

    /// Nil when the request at `current` may follow its redirect to `target` after `followed`
    /// earlier hops; otherwise the error that ends it.
    static func refusal(from current: String, to target: String, followed: Int, settings: HTTPSettings) -> HTTPError? {
        guard let to = URLOrigin(target) else {
            return HTTPError(
                kind: .unsupportedURL, url: current, detail: "redirected to \(target), not an http(s) URL",
                advice: "podcast follows redirects to http and https only; tell the publisher")
        }
        guard followed < settings.maxRedirects else {
            return HTTPError(
                kind: .tooManyRedirects, url: current, detail: "more than \(settings.maxRedirects) redirects",
                advice: "the server redirects in a loop; report it to the publisher")
        }
        if URLOrigin(current)?.isSecure == true, !to.isSecure, !settings.allowsInsecureRedirects {
            return HTTPError(
                kind: .insecureRedirect, url: current,
                detail: "refused the redirect from https to plain http (\(target))",
                advice: "the rest would travel unencrypted; set allow-insecure-redirects = true in the configuration "
                    + "file (or pass --allow-insecure-redirects) to follow it anyway")
        }
        return nil
    }
}
