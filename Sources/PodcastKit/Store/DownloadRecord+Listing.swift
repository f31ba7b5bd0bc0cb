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
