import CCurl

/// The cookies of one run, in memory only: a libcurl share of `CURL_LOCK_DATA_COOKIE` that every
/// transfer of the run's engine uses, so a cookie a CDN sets on a redirect goes with the next
/// hop and with the run's other transfers to that site. Nothing is written to disk.
///
/// Not Sendable and without lock callbacks: libcurl allows a share without locks when one thread
/// uses it, and only the engine thread does. It must outlive the handles that use it.
public final class CookieJar {
    let handle: UnsafeMutableRawPointer

    /// A new, empty jar, or nil when libcurl cannot make one.
    public init?() {
        guard let share = curl_share_init() else { return nil }
        guard podcast_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue)) == CURLSHE_OK else {
            curl_share_cleanup(share)
            return nil
        }
        handle = share
    }

    deinit {
        curl_share_cleanup(handle)
    }
}
