import Glibc

/// `podcast pause` and `podcast cancel` from any terminal: stops downloads whoever runs them (the
/// background worker, a foreground `podcast download`, or nobody any more).
public enum DownloadControl {
    /// Stops the downloads of `keys` (nil: all that `request` applies to), then waits up to
    /// `patience` for the processes asked to stop theirs; a process that dies meanwhile without
    /// answering has its downloads stopped here. Partial files of downloads cancelled here are
    /// deleted. Returns what was stopped here, what was asked of live processes, and which of those
    /// had not stopped when the patience ran out.
    public static func stop(
        _ request: StopRequest, of keys: [EpisodeKey]?, store: StateStore,
        patience: Duration = .seconds(15)
    ) throws(StoreError) -> StopOutcome {
        var outcome = try store.stopRequests.request(request, of: keys)
        deletePartials(of: outcome.stopped, for: request)
        let deadline = ContinuousClock.now + patience
        while true {
            var orphaned: [EpisodeKey] = []
            var waiting: [DownloadRecord] = []
            var finished: [DownloadRecord] = []
            for asked in outcome.asked {
                let now = try store.downloads.record(asked.key)
                if let now, now.state == .downloaded { finished.append(now) }
                guard let now, [.queued, .downloading].contains(now.state), let owner = now.owner, owner == asked.owner
                else { continue }
                if owner.isAlive {
                    waiting.append(asked)
                } else {
                    orphaned.append(asked.key)
                }
            }
            if !orphaned.isEmpty {
                let late = try store.stopRequests.request(request, of: orphaned)
                deletePartials(of: late.stopped, for: request)
                outcome.stopped += late.stopped
                outcome.asked.removeAll { record in late.stopped.contains { $0.key == record.key } }
            }
            guard !waiting.isEmpty, ContinuousClock.now < deadline else {
                outcome.unanswered = waiting
                outcome.finishedFirst = finished
                outcome.asked.removeAll { record in finished.contains { $0.key == record.key } }
                return outcome
            }
            usleep(50_000)
        }
    }

    private static func deletePartials(of records: [DownloadRecord], for request: StopRequest) {
        guard request == .cancel else { return }
        for record in records {
            // Ownership: the cancelled download's own partial file, in podcast's `.partial` folder.
            if let partial = record.resume.partialPath { unlink(partial) }
        }
    }
}
