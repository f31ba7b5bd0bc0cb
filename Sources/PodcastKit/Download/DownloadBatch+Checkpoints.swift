extension DownloadBatch {
    /// A large download's resume data is made durable this often, by bytes or by time, whichever
    /// comes first; a small one only at its end (design notes: fsync is what makes aria2 slow).
    static let checkpointBytes: Int64 = 16 * 1024 * 1024
    static let checkpointInterval = Duration.seconds(10)
    /// Answers for files at least this large have their validator recorded as soon as they arrive.
    static let recordAtOnceBytes: Int64 = 1024 * 1024
    /// How often the progress buffer learns where running downloads stand (for `status`).
    static let progressWriteInterval = Duration.seconds(1)

    /// Takes a progress snapshot: checkpoints the downloads that are due (data `fdatasync`ed
    /// first, then the record, so a kill -9 at any instant leaves a true record) and, once a
    /// second, writes where the others stand. The first checkpoint of an answer only records its
    /// validator, without a sync: after a kill -9 in the same boot the file's size is trusted anyway.
    func checkpoint(_ snapshot: [TransferProgress], report: (DownloadUpdate) -> Void) {
        let now = ContinuousClock.now
        var due: [DownloadRecord] = []
        var others: [(key: EpisodeKey, bytes: Int64, speed: Double)] = []
        for progress in snapshot {
            guard let download = active[progress.id] else { continue }
            download.record.speed = progress.speed
            guard download.response != nil else { continue }
            let checkpointed = download.lastCheckpoint
            if checkpointed == nil || progress.bytes - download.record.durableBytes >= Self.checkpointBytes
                || now - (checkpointed ?? now) >= Self.checkpointInterval {
                if checkpointed == nil {
                    download.record.bytes = progress.bytes
                } else {
                    sync(download, bytes: progress.bytes, into: &download.record)
                }
                download.record.dataBoot = ProcessOwner.currentBoot
                download.record.state = .downloading
                download.lastCheckpoint = now
                due.append(download.record)
            } else {
                download.record.bytes = progress.bytes
                others.append((download.record.key, progress.bytes, progress.speed))
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
            warnOnce(about: error, items: due.isEmpty ? snapshot.compactMap { active[$0.id]?.item } : due.compactMap(item(of:)), report: report)
        }
    }

    /// Warns, once per batch, that the store cannot take progress records.
    private func warnOnce(about error: any Error, items: [DownloadItem], report: (DownloadUpdate) -> Void) {
        guard !progressUnrecorded, let item = items.first else { return }
        progressUnrecorded = true
        report(.warning(item, "could not record download progress (\(error)); if podcast stops now, podcast resume may fetch some bytes again"))
    }

    private func item(of record: DownloadRecord) -> DownloadItem? {
        active.values.first { $0.record.key == record.key }?.item
    }

    /// Starts writing the bytes of `download` received since the last call to disk, without
    /// waiting, so the disk writes while the network reads and the checkpoints' and the final
    /// `fdatasync` wait for little (on a disk, the end of a large download would otherwise wait
    /// for all of it). The bytes handed over the time before are written by now and leave the
    /// page cache, so a large download does not push everything else out of memory. Only hints:
    /// a failure changes nothing.
    func startWriteback(_ download: ActiveDownload, upTo bytes: Int64) {
        if bytes < download.writeback.upperBound { download.writeback = 0..<0 }  // started over
        let handed = download.writeback
        try? FileIO.startWriteback(download.partialPath, of: handed.upperBound..<bytes, dropping: handed)
        download.writeback = handed.upperBound..<bytes
    }
}
