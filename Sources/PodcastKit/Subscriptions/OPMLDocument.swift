/// What an OPML file lists, and what of it could not be subscribed to.
public struct OPMLDocument: Sendable, Equatable {
    /// The subscriptions, in file order, each feed URL once.
    public var outlines: [OPMLOutline]
    /// Feed URLs left out because they are not http(s) once resolved (`file:`, `javascript:`, a
    /// relative path in a local file), as resolved, in file order: shown to the user, never fetched.
    public var skipped: [String]
    /// How many outlines repeated a feed URL listed before them (the first one is kept).
    public var duplicates: Int

    /// A document listing `outlines`.
    public init(outlines: [OPMLOutline], skipped: [String] = [], duplicates: Int = 0) {
        self.outlines = outlines
        self.skipped = skipped
        self.duplicates = duplicates
    }
}
