import Glibc

extension DownloadRecord {
    /// The state a listing shows for this episode, or nil for `new` (its finished file has since
    /// been removed). A download whose process is gone shows as `paused`: it can be continued.
    public var listedState: State? {
        switch state {
        case .downloaded: path.map { access($0, F_OK) == 0 } == true ? .downloaded : nil
        case .queued, .downloading: owner?.isAlive == true ? state : .paused
        default: state
        }
    }
}

extension Listing {
    /// The numbers of the items the selection word `new` means: listed, and not downloaded, queued,
    /// being downloaded, failed for good or deleted by podcast (`records`: the progress buffer's, by identity).
    public func newNumbers(records: [String: DownloadRecord]) -> Set<Int> {
        Set(items.filter { item in
            guard let record = records[item.identity] else { return true }
            switch record.listedState {
            case nil, .paused?: return true
            case .failed?: return !record.finalError
            case .downloaded?, .queued?, .downloading?, .deleted?: return false
            }
        }.map(\.number))
    }
}
