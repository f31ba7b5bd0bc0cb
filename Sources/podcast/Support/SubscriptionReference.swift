import PodcastHTTP
import PodcastKit

/// The subscriptions the words of `unsubscribe`, `update` and `catch-up` name: a number from
/// `podcast subscriptions`, a feed URL (current or earlier), or a title: written exactly, or in
/// other letter case when only one subscription is titled so (`TitleReference`).
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
        if HTTPClient.isHTTP(word), let subscription = try store.subscriptions.find(url: word) {
            return subscription
        }
        switch TitleReference(word, titles: subscriptions.map(\.title)) {
        case .exact(let found) where found.count == 1, .ignoringCase(let found) where found.count == 1:
            return subscriptions[found[0]]
        case .exact(let found):
            throw UsageError("\(found.count) subscriptions are titled \"\(word)\"; name one by its number or feed URL")
        case .ignoringCase(let found):
            let named = found.map { "\($0 + 1) \"\(subscriptions[$0].title)\"" }.joined(separator: ", ")
            throw UsageError("\(found.count) subscriptions are titled \"\(word)\" but for letter case (\(named)); name one by its number or exact title")
        case .none(let suggestion):
            let guess = suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""
            throw UsageError("no subscription is numbered, addressed or titled \"\(word)\"\(guess); see podcast subscriptions")
        }
    }
}
