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

    /// What is wrong with `field` as a header, or nil when it is one line of `Name: value`.
    public static func problem(with field: String) -> String? {
        let name = field.prefix { $0 != ":" }
        guard field.contains(":"), !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else {
            return "a header is 'Name: value', not \"\(name):…\""
        }
        guard !field.contains(where: { $0 == "\r" || $0 == "\n" }) else {
            return "header \(name) must be one line"
        }
        return nil
    }

    /// Whether `host` can name the hosts headers go to (`cdn.example.com`): no scheme, port, path or spaces.
    public static func isHostName(_ host: String) -> Bool {
        !host.isEmpty && !host.contains(where: { "/:@ ".contains($0) })
    }

    /// The header names, for messages: the values are never shown.
    public var names: [String] {
        fields.map { String($0.prefix { $0 != ":" }) }
    }
}
