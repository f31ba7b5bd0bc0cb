/// The one written form of a feed's address, so that `HTTP://h/x`, `http://h:80/x` and
/// `http://h/x#top` are one subscription (and each episode is downloaded once), not three.
///
/// Only what can never name another document changes: the scheme's and host's case (both are
/// case-insensitive, RFC 3986 §3.1 and §3.2.2), the scheme's default port, and the fragment
/// (never sent to the server). The userinfo, path and query are the server's to interpret, so
/// they are kept exactly, percent-encoding and case included.
public enum FeedAddress {
    /// `address` normalised, when it is an absolute http(s) URL with a host; anything else as it is.
    public static func normalized(_ address: String) -> String {
        guard var parts = URLParts(address), parts.scheme == "http" || parts.scheme == "https", !parts.host.isEmpty else {
            return address
        }
        parts.fragment = nil
        return parts.url
    }

}
