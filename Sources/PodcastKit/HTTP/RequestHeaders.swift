/// Extra request headers a user gave (`--header`), and the servers they may go to.
///
/// Such headers often carry a secret (an API key, a session cookie), so they are never sent to a
/// server the user did not mean: with `hosts`, only to requests for those hosts (and their
/// subdomains), on any hop of a redirect chain; without, to the server each request starts at (a
/// feed's host, an episode's host as the feed lists it) and never past a redirect to another.
public struct RequestHeaders: Sendable, Equatable, Codable {
    /// Each header as `Name: value`.
    public var fields: [String]
    /// The hosts the headers are for; empty for "the server each request starts at".
    public var hosts: [String]

    /// Headers `fields` for `hosts` (empty: for the server each request starts at).
    public init(fields: [String] = [], hosts: [String] = []) {
        self.fields = fields
        self.hosts = hosts
    }

    /// True when there are no headers to send.
    public var isEmpty: Bool { fields.isEmpty }

    /// The headers for a request to `url` on a redirect chain that began at `start`.
    func fields(for url: String, startingAt start: String) -> [String] {
        guard !fields.isEmpty, let origin = URLOrigin(url) else { return [] }
        if hosts.isEmpty { return origin == URLOrigin(start) ? fields : [] }
        return hosts.contains(where: origin.isWithin) ? fields : []
    }

    /// The header names, for messages: the values are never shown.
    public var names: [String] {
        fields.map { String($0.prefix { $0 != ":" }) }
    }
}
