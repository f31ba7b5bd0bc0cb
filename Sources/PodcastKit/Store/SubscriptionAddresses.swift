import PodcastHTTP

/// The addresses of the subscriptions (`subscriptions.url` and `subscription_urls`), as `update`
/// needs them to keep one subscription from moving onto another's address.
struct SubscriptionAddresses {
    let store: StateStore

    /// Every address a subscription has, its current one and each earlier one (`subscription_urls`),
    /// by `FeedAddress.normalized`, with the subscription that has it: where `update` may not
    /// move another subscription.
    func owners() throws(StoreError) -> [String: FeedRefresh.Owner] {
        try store.read { () throws(SQLiteError) in
            let query = try store.connection.prepare("""
                SELECT url, id, title FROM subscriptions
                UNION ALL
                SELECT u.url, s.id, s.title FROM subscription_urls AS u JOIN subscriptions AS s ON s.id = u.subscription
                """)
            var owners: [String: FeedRefresh.Owner] = [:]
            while try query.step() {
                let key = FeedAddress.normalized(try query.string(at: 0))
                // Two subscriptions whose addresses differ only in a host's case: the first keeps it.
                if owners[key] == nil {
                    owners[key] = FeedRefresh.Owner(subscription: try query.int(at: 1), title: try query.string(at: 2))
                }
            }
            return owners
        }
    }
}
