/// What an OPML file lists, and what of it could not be subscribed to.
public struct OPMLDocument: Sendable, Equatable {
    /// The subscriptions, in file order, each feed URL once.
    public var outlines: [OPMLOutline]
    /// Feed URLs left out because they are not http(s) once resolved (`file:`, `javascript:`, a
    /// relative path in a local file), as resolved, in file order: shown to the user, never fetched.
    public var skipped: [String]
    /// Feed URLs refused because a control character (a line break, a tab) stands in them, as
    /// written: no server's address has one, and a space put in its place on export would name
    /// another feed. In file order, shown to the user, never fetched.
    public var refused: [String] = []
    /// How many outlines repeated a feed URL listed before them (the first one is kept).
    public var duplicates: Int
    /// The outlines (also in `outlines`) whose feed address the file wrote without a scheme
    /// (`feeds.example.com/rss`), taken as https: shown to the user, who may have meant http.
    public var schemeless: [OPMLOutline]

    /// A document listing `outlines`.
    public init(outlines: [OPMLOutline], skipped: [String] = [], duplicates: Int = 0, schemeless: [OPMLOutline] = []) {
        self.outlines = outlines
        self.skipped = skipped
        self.duplicates = duplicates
        self.schemeless = schemeless
    }
}
