/// What one feed's update changed, for the store to record in one transaction.
public struct SubscriptionRefreshRecord: Sendable {
    /// The subscription.
    public var id: Int
    /// Where the feed lives now (its old address when it did not move).
    public var address: String
    /// How the update ended.
    public var result: Subscription.Result
    /// Why it failed, when it did.
    public var error: String?
    /// The feed's title, when it was read.
    public var title: String?
    /// The podcast's web page, when the feed was read and names one.
    public var htmlURL: String?
    /// The first page's digest, when it was fetched whole.
    public var digest: String?
    /// The first page's validators and cached body, when it was fetched whole.
    public var cacheEntry: FeedCacheEntry?
    /// Its episodes, newest first, when it was read.
    public var episodes: [ListingItem]?

    /// A record of subscription `id`'s update.
    public init(
        id: Int, address: String, result: Subscription.Result, error: String? = nil, title: String? = nil, htmlURL: String? = nil,
        digest: String? = nil, cacheEntry: FeedCacheEntry? = nil, episodes: [ListingItem]? = nil
    ) {
        self.id = id
        self.address = address
        self.result = result
        self.error = error
        self.title = title
        self.htmlURL = htmlURL
        self.digest = digest
        self.cacheEntry = cacheEntry
        self.episodes = episodes
    }
}
