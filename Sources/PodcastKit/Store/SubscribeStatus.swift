/// How `subscribe` or `import` left a feed.
public enum SubscribeStatus: String, Sendable {
    /// A new subscription.
    case added
    /// An existing one whose settings changed.
    case changed
    /// An existing one, left as it was.
    case exists
    /// An existing one that had answered 410 Gone, fetched again by `update` from now on, with
    /// its history (the contract calls it `changed`).
    case revived
}
