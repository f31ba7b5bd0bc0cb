extension DownloadBatch {
    /// How often the batch looks for pause and cancel requests addressed to its process.
    static let stopRequestPollInterval = Duration.seconds(1)

    /// Once a second (called with each progress snapshot), takes the requests that `podcast pause`
    /// and `podcast cancel` addressed to this process and hands each to its episode's machine: a
    /// running one stops its transfer and carries the request out when it comes back; one still
    /// waiting to start carries it out at once.
    func pollStopRequests(report: (DownloadUpdate) -> Void) {
        let now = ContinuousClock.now
        // Requests stay in the store until every episode is claimed: one for an episode not
        // claimed yet would otherwise be taken and find nothing to stop.
        guard !hasUnclaimed, now - lastStopRequestPoll >= Self.stopRequestPollInterval else { return }
        lastStopRequestPoll = now
        let requests: [AddressedStopRequest]
        do {
            requests = try store.takeStopRequests(for: .current)
        } catch {
            // Nothing was taken: the requests stay in the store and are read at the next poll.
            return
        }
        for request in requests {
            if let id = active.first(where: { $0.value.record.key == request.key })?.key {
                perform(active[id]?.stopAsked(request.request), for: id, report: report)
            } else if let index = claims.takeWaiting(where: { items[$0].key == request.key }), admit(index, report: report) {
                perform(active[index]?.stopAskedBeforeStart(request.request), for: index, report: report)
            }
        }
    }
}
