import Glibc

extension DownloadBatch {
    /// How often the batch looks for pause and cancel requests addressed to its process.
    static let stopRequestPollInterval = Duration.seconds(1)

    /// The stop requests a batch has taken and not yet carried out, by request id.
    struct StopRequests {
        var taken: [Int: StopRequest] = [:]
        var lastPoll = ContinuousClock.now
    }

    /// Once a second (called with each progress snapshot), takes the requests that `podcast pause`
    /// and `podcast cancel` addressed to this process and cancels the transfers they name; each
    /// comes back as a failed transfer, which `honourStopRequest` ends as asked. An episode still
    /// waiting to start is ended as asked at once.
    func pollStopRequests(report: (DownloadUpdate) -> Void) {
        let now = ContinuousClock.now
        // Requests stay in the store until every episode is claimed: one for an episode not
        // claimed yet would otherwise be taken and find nothing to stop.
        guard !hasUnclaimed, now - stopRequests.lastPoll >= Self.stopRequestPollInterval else { return }
        stopRequests.lastPoll = now
        let requests: [AddressedStopRequest]
        do {
            requests = try store.takeStopRequests(for: .current)
        } catch {
            // Nothing was taken: the requests stay in the store and are read at the next poll.
            return
        }
        for request in requests {
            if let download = active.values.first(where: { $0.record.key == request.key }) {
                stopRequests.taken[download.id] = request.request
                engine?.cancel(download.id)
            } else if let index = takeWaiting(where: { $0.key == request.key }),
                let download = activeDownload(index, report: report) {
                carryOut(request.request, on: download, bytes: download.plannedResume?.offset ?? 0, report: report)
            }
        }
    }

    /// Ends `download` as a request asked, when one did: paused with its resume data, or
    /// cancelled (partial file and record deleted, reported as skipped: the user withdrew it, it
    /// did not fail). Returns false when nothing was asked of it.
    func honourStopRequest(_ download: ActiveDownload, _ failure: FailedTransfer, report: (DownloadUpdate) -> Void) -> Bool {
        guard let request = stopRequests.taken.removeValue(forKey: download.id) else { return false }
        // A transfer cancelled while it waited reports 0 bytes; the file still holds what it had.
        carryOut(request, on: download, bytes: max(failure.bytes, download.record.bytes), report: report)
        return true
    }

    /// Pauses `download` (its partial file holding `bytes`) or cancels it, as `request` asks.
    private func carryOut(_ request: StopRequest, on download: ActiveDownload, bytes: Int64, report: (DownloadUpdate) -> Void) {
        switch request {
        case .pause:
            pause(download, bytes: bytes, because: "paused", report: report)
        case .cancel:
            unlink(download.partialPath)
            var outcome = "cancelled"
            do {
                try store.deleteDownload(download.record.key)
            } catch {
                // A record left behind has no partial file any more: a later resume starts it over.
                outcome = "cancelled, but its record could not be removed (\(error)); podcast resume would fetch it again"
            }
            settle(download, DownloadResult(item: download.item, state: .skipped, path: nil, bytes: download.received, error: outcome), report: report)
        }
    }
}
