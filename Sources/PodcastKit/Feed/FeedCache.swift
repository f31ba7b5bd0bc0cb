/// Where the conditional-GET validators of fetched feeds are kept (the state store).
public protocol FeedCache {
    /// The entry for `url`, if it was fetched before.
    func entry(url: String) throws(StoreError) -> FeedCacheEntry?
    /// Stores the entry for `entry.url`.
    func save(_ entry: FeedCacheEntry) throws(StoreError)
}
