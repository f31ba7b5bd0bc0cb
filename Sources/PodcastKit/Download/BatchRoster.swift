/// The batch's episodes: every item asked for (request ids are indexes into it), which of them
/// wait to be claimed or started (`ClaimQueue`), and each one's result once it ended.
struct BatchRoster {
    /// Every item, in the order asked for.
    private(set) var items: [DownloadItem] = []
    /// The items not active yet: unclaimed, or claimed and waiting to start.
    var claims = ClaimQueue(count: 0)
    /// The results of the episodes that ended, by index.
    private var results: [Int: DownloadResult] = [:]

    /// Adds `more` items after the others (the background worker's refill, an update's finds).
    mutating func add(_ more: [DownloadItem]) {
        guard !more.isEmpty else { return }
        items += more
        claims.extend(by: more.count)
    }

    subscript(index: Int) -> DownloadItem { items[index] }

    /// True while some items are not claimed yet.
    var hasUnclaimed: Bool { claims.hasUnclaimed }

    /// Episode `index` ended with `result`.
    mutating func settle(_ index: Int, _ result: DownloadResult) {
        results[index] = result
    }

    /// One result per item that ended, in the items' order.
    var outcomes: [DownloadResult] { items.indices.compactMap { results[$0] } }
}
