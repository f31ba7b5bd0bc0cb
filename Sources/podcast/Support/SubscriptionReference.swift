import PodcastKit

/// The subscriptions the words of `unsubscribe`, `update` and `catch-up` name: a number from
/// `podcast subscriptions`, a feed URL (current or earlier), or an exact title.
enum SubscriptionReference {
    /// The subscriptions `words` name, each once, in the order named; all of `subscriptions`
    /// (as `podcast subscriptions` numbers them) when there are no words.
    static func resolve(_ words: [String], in subscriptions: [Subscription], store: StateStore) throws -> [Subscription] {
        guard !words.isEmpty else { return subscriptions }
        guard !subscriptions.isEmpty else {
            throw UsageError("there are no subscriptions; add one with podcast subscribe <feed>")
        }
        var chosen: [Subscription] = []
        for word in words {
            let found = try find(word, in: subscriptions, store: store)
            if !chosen.contains(where: { $0.id == found.id }) { chosen.append(found) }
        }
        return chosen
    }

    private static func find(_ word: String, in subscriptions: [Subscription], store: StateStore) throws -> Subscription {
        if let number = Int(word) {
            guard subscriptions.indices.contains(number - 1) else {
                throw UsageError("there is no subscription \(number) (1–\(subscriptions.count)); see podcast subscriptions")
            }
            return subscriptions[number - 1]
        }
        if HTTPClient.isHTTP(word), let subscription = try store.subscription(url: word) {
            return subscription
        }
        let titled = subscriptions.filter { $0.title == word }
        if titled.count == 1 { return titled[0] }
        if titled.count > 1 {
            throw UsageError("\(titled.count) subscriptions are titled \"\(word)\"; name one by its number or feed URL")
        }
        throw UsageError("no subscription is numbered, addressed or titled \"\(word)\"; see podcast subscriptions")
    }
}
