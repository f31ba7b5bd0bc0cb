/// Whose transfer one of a batch's engine requests is: episode `episode`'s media file, or its
/// companion file number `companion` (its index among the episode's companions), so the batch
/// hands every event to the episode that owns the transfer.
///
/// The engine keys requests by an `Int` (`TransferRequest.id`): both numbers are packed in it,
/// the episode's index in the low 40 bits and the companion's number plus one above them, which
/// keeps every id below the ids of the feed transfers that share the engine (`FeedRound.firstID`).
/// An episode's media transfer is thus keyed by its index itself, as `active` is.
struct TransferID: Hashable {
    /// The episode's index in the batch (`BatchRoster`).
    let episode: Int
    /// Which of the episode's companion files; nil for its media file.
    let companion: Int?

    private static let episodeBits = 40
    /// How many companions an episode may have before its ids would reach the feeds': 1,023, and
    /// an episode has at most four.
    private static let companionLimit = (FeedRound.firstID >> episodeBits) - 1

    init(episode: Int, companion: Int? = nil) {
        precondition(episode >= 0 && episode < 1 << Self.episodeBits, "episode index \(episode) out of range")
        precondition((companion ?? 0) >= 0 && (companion ?? 0) < Self.companionLimit, "companion number out of range")
        self.episode = episode
        self.companion = companion
    }

    /// The id of the engine request `raw`, which must be the batch's own (not a feed's).
    init(_ raw: Int) {
        episode = raw & ((1 << Self.episodeBits) - 1)
        let number = raw >> Self.episodeBits
        companion = number == 0 ? nil : number - 1
    }

    /// The engine's key for it.
    var raw: Int {
        episode | ((companion.map { $0 + 1 } ?? 0) << Self.episodeBits)
    }
}
