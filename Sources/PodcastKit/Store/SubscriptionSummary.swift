/// A subscription with the counts `podcast subscriptions` shows.
public struct SubscriptionSummary: Sendable, Equatable {
    /// The subscription.
    public var subscription: Subscription
    /// Episodes its fetches have shown.
    public var episodes: Int
    /// Episodes waiting for `update` to download them.
    public var new: Int
    /// Its episodes downloaded and on disk.
    public var downloaded: Int
}
