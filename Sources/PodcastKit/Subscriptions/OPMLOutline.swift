/// One subscription in an OPML file: an `<outline>` that names a feed.
public struct OPMLOutline: Sendable, Equatable {
    /// The podcast's name as the file gives it (`title`, else `text`); nil when it gives none.
    public var title: String?
    /// The feed's address: absolute, http or https.
    public var feedURL: String
    /// The podcast's web page, when the file names one.
    public var htmlURL: String?

    /// A subscription to the feed at `feedURL`.
    public init(title: String?, feedURL: String, htmlURL: String? = nil) {
        self.title = title
        self.feedURL = feedURL
        self.htmlURL = htmlURL
    }
}
