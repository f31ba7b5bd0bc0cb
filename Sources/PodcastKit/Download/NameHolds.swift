/// The names a batch's unfinished episodes hold, so that episodes wanting the same file name get
/// it in the batch's order (the order they were listed or selected in), not in the order they
/// happen to finish. Each episode holds one stem (its media file's path without the extension,
/// what its companions are named after) from when it is admitted, which is in the batch's
/// order, until it ends. Pure bookkeeping: what is free on disk is the caller's `isFree`.
struct NameHolds {
    /// The episode holding each stem.
    private var holders: [String: Int] = [:]
    /// The stem each episode holds.
    private var stems: [Int: String] = [:]

    /// Holds for episode `id` the first of its candidate paths (`candidate(1)`, `candidate(2)`,
    /// … for `name`, `name (2)`, …) whose stem no other episode holds and that `isFree`; returns it.
    /// An episode holds one stem: holding again gives up the one it held.
    mutating func hold(for id: Int, candidate: (Int) -> String, isFree: (String) throws -> Bool) rethrows -> String {
        release(id)
        var attempt = 1
        while true {
            let path = candidate(attempt)
            attempt += 1
            let stem = EpisodePlacement.stem(of: path)
            guard holders[stem] == nil, try isFree(path) else { continue }
            holders[stem] = id
            stems[id] = stem
            return path
        }
    }

    /// True when an episode other than `id` holds `path`'s stem: `id` must not take that name.
    func isHeld(_ path: String, byOtherThan id: Int) -> Bool {
        holders[EpisodePlacement.stem(of: path)].map { $0 != id } ?? false
    }

    /// Episode `id` ended: its stem is free for the others (its file, if placed, now speaks for it).
    mutating func release(_ id: Int) {
        guard let stem = stems.removeValue(forKey: id) else { return }
        holders[stem] = nil
    }
}
