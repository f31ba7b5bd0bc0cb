/// What recording an update found among its episodes.
public struct RefreshTriage: Sendable, Equatable {
    /// Episodes that became new.
    public var new: Int
    /// Episodes the churn guard held back (0 when it did not act).
    public var churned: Int
    /// Why the feed did not move to its new address, when it could not (another subscription has it).
    public var moveRefused: String?
}
