import Glibc
import PodcastPlatform

extension DownloadBatch {
    /// How often the progress buffer learns where running downloads stand (for `status`).
    static let progressWriteInterval = Duration.seconds(1)

    /// Takes a progress snapshot: each episode's machine says what is due (`Checkpoint`); data is
    /// `fdatasync`ed before the record that vouches for it, so a kill -9 at any instant leaves a
    /// true record, and once a second the others' progress is written for `status`.
    func checkpoint(_ snapshot: [TransferProgress], report: (DownloadUpdate) -> Void) {
        let now = ContinuousClock.now
        var due: [DownloadRecord] = []
        var others: [(key: EpisodeKey, bytes: Int64, speed: Double)] = []
        for progress in snapshot {
            switch active[progress.id]?.progressed(progress, now: now) {
            case .none?, nil:
                continue
            case .progress?:
                if let key = active[progress.id]?.record.key { others.append((key, progress.bytes, progress.speed)) }
            case .record?:
                if let record = active[progress.id]?.record { due.append(record) }
            case .sync(let bytes)?:
                guard let path = active[progress.id]?.partialPath else { continue }
                active[progress.id]?.synced(bytes, durable: syncPartial(path, bytes: bytes))
                if let record = active[progress.id]?.record { due.append(record) }
            }
        }
        do {
            try store.saveDownloads(due)
            if now - lastProgressWrite >= Self.progressWriteInterval {
                lastProgressWrite = now
                try store.recordProgress(others)
            }
        } catch {
            // Not fatal: the records stay behind their files, which is safe (a record never
            // vouches for more than the file holds), and the next checkpoint tries again.
            warnProgressUnrecorded(error, snapshot: snapshot, report: report)
        }
    }

    /// Warns, once per batch, that the store cannot take progress records.
    private func warnProgressUnrecorded(_ error: any Error, snapshot: [TransferProgress], report: (DownloadUpdate) -> Void) {
        guard !progressUnrecorded, let item = snapshot.lazy.compactMap({ self.active[$0.id]?.item }).first else { return }
        progressUnrecorded = true
        report(.warning(item, "could not record download progress (\(error)); if podcast stops now, podcast resume may fetch some bytes again"))
    }

    /// Starts writing the bytes of episode `id` received since the last call to disk, without
    /// waiting, so the disk writes while the network reads and the checkpoints' and the final
    /// `fdatasync` wait for little (on a disk, the end of a large download would otherwise wait
    /// for all of it). The digest lets them leave the page cache once it has read them
    /// (`DigestInProgress`).
    func startWriteback(_ id: Int, upTo bytes: Int64) {
        guard let range = active[id]?.filled(upTo: bytes), let path = active[id]?.partialPath else { return }
        do {
            try FileIO.startWriteback(path, of: range)
        } catch {
            // Only a hint to the kernel: the data is in the page cache either way, and the sync
            // before the record is what makes it durable.
        }
    }
}
