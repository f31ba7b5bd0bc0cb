/// Where the conditional-GET validators of fetched feeds are kept (the state store).
public protocol FeedCache {
    /// The entry for `url`, if it was fetched before.
    func feedCacheEntry(url: String) throws(StoreError) -> FeedCacheEntry?
    /// Stores the entry for `entry.url`.
    func saveFeedCacheEntry(_ entry: FeedCacheEntry) throws(StoreError)
}

extension StateStore: FeedCache {}
