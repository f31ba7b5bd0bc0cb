import FoundationEssentials

/// One `update --background`: which subscriptions (nil: all), whether to skip the conditional
/// GET, and the settings its downloads use.
public struct UpdateRequest: Sendable, Equatable {
    /// Its number in the store.
    public var id: Int
    /// The subscriptions to update, by id; nil for all of them.
    public var subscriptions: [Int]?
    /// Fetch every feed in full.
    public var refresh: Bool
    /// How its new episodes are downloaded.
    public var settings: QueuedSettings

    /// Creates a request value.
    public init(id: Int, subscriptions: [Int]?, refresh: Bool, settings: QueuedSettings) {
        self.id = id
        self.subscriptions = subscriptions
        self.refresh = refresh
        self.settings = settings
    }
}
