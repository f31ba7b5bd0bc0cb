import Glibc
import PodcastPlatform
import PodcastText

extension DownloadBatch {
    /// Places the files that are ready (their episodes `finishing`) as one group, when it is due
    /// (`BatchChores.finishingDue`).
    func finishReadyFiles(report: (DownloadUpdate) -> Void) {
        var ready: [(id: Int, done: CompletedTransfer, file: FinishedFile)] = []
        var othersRunning = false
        for (id, download) in active {
            switch download.phase {
            case .finishing(let done, let file): ready.append((id, done, file))
            // Companion transfers are short: ready files do not wait for them to be finished together.
            case .preparing, .completing, .ended: break
            case .queued, .transferring, .waitingToRetry: othersRunning = true
            }
        }
        guard chores.finishingDue(ready: ready.count, othersRunning: othersRunning) else { return }
        chores.finished()
        finish(ready.sorted { $0.id < $1.id }, report: report)
    }

    /// Moves ready files to their final names, together: their data synced, then one transaction
    /// places every file and records it with its size and SHA-256, then each folder is synced once
    /// (no syncs on a file system in memory). Which file each is was recorded before
    /// (`placements.record`): a crash between placing and recording leaves a file the next run
    /// knows as its own by that (`adoptPlaced`). A tagged copy goes into place instead of the
    /// partial file, which is removed only once that is recorded: until then the partial file is
    /// the one its record describes. Then the file a re-fetched episode had under another name
    /// goes, and its companion files are fetched: the episode is settled once they have ended.
    private func finish(_ ready: [(id: Int, done: CompletedTransfer, file: FinishedFile)], report: (DownloadUpdate) -> Void) {
        // The tagged copies among them: by the end each is in place (renamed away) or unwanted.
        let copies = ready.compactMap { id, _, file in file.source != active[id]?.partialPath ? file.source : nil }
        // Ownership: tagged copies this batch made; by the end each is placed (renamed away) or unwanted.
        defer { for copy in copies { unlink(copy) } }
        var placing: [(done: CompletedTransfer, file: FinishedFile)] = []
        for (id, done, file) in ready {
            guard let download = active[id] else { continue }
            do {
                try placement.makeFolder(download.folder)
                if placement.syncsToDisk { try FileIO.syncData(file.source) }
                placing.append((done, file))
            } catch {
                perform(active[id]?.placingFailed("\(error)"), for: id, report: report)
            }
        }
        recordPlacements(&placing, report: report)
        var placed: [(done: CompletedTransfer, path: String, replaced: RecordedFile?)] = []
        var recorded: Set<Int> = []
        do {
            try store.transaction {
                for (done, file) in placing {
                    guard let download = active[done.id] else { continue }
                    // What the store says of the earlier copy, read before the new one's record replaces it.
                    let replaced = try download.record.path.flatMap { path throws(StoreError) in try store.libraryFiles.recordedFile(path: path) }
                    let path = try placement.moveIntoPlace(download, from: file.source, store: store)
                    var placedFile = file
                    placedFile.stamp = FileIO.stamp(ofName: path)
                    active[done.id]?.placed(at: path, file: placedFile)
                    // Counted as placed before its record is written: a failed write leaves a file
                    // in place, which the rollback's handling below records again or reports.
                    placed.append((done, path, replaced?.path == path ? nil : replaced))
                    if let record = active[done.id]?.record {
                        try store.downloads.saveCompleted(record)
                        try store.placements.forget([record.key])
                    }
                }
            }
            recorded = Set(placed.map(\.done.id))
        } catch {
            // The files placed before the failure are in place; their records went with the rollback.
            for (done, path, _) in placed {
                guard let download = active[done.id] else { continue }
                guard let problem = save(download.record) else {
                    recorded.insert(done.id)
                    do {
                        try store.placements.forget([download.item.key])
                    } catch {
                        report(.warning(download.item, "recorded as \(path), but its placement was not forgotten (\(error)); the next run forgets it"))
                    }
                    continue
                }
                report(.warning(download.item, "saved as \(path) but not recorded (\(problem)); the next run records it"))
            }
            for (done, _) in placing where !placed.contains(where: { $0.done.id == done.id }) {
                perform(active[done.id]?.placingFailed("\(error)"), for: done.id, report: report)
            }
        }
        for (done, file) in placing where recorded.contains(done.id) {
            guard let partial = active[done.id]?.partialPath, file.source != partial else { continue }
            // Ownership: the episode's own partial file, once its tagged copy is placed and recorded.
            unlink(partial)
        }
        if placement.syncsToDisk {
            for folder in Set(placed.compactMap { active[$0.done.id]?.folder }) {
                do {
                    try FileIO.syncData(folder)
                } catch {
                    guard let item = placed.lazy.compactMap({ self.active[$0.done.id] }).first(where: { $0.folder == folder })?.item else { continue }
                    report(.warning(item, "could not sync the folder \(folder) (\(error)); after a power loss its new files may be missing"))
                }
            }
        }
        for (done, path, replaced) in placed {
            guard let download = active[done.id] else { continue }
            if let replaced { removeReplaced(replaced, of: download.item, report: report) }
            if let declared = download.item.entry.enclosureLength, declared > 1, declared != done.bytes {
                report(.warning(download.item, "the feed says \(declared) bytes, the server sent \(done.bytes); kept the server's file"))
            }
            let files = companions.wanted(of: download.item, filing: download.filing, at: path, report: report)
            perform(active[done.id]?.fetchCompanions(files, batchStop: stop), for: done.id, report: report)
        }
    }

    /// Records which file each of `placing` is (`Placement`) before any takes its name: a kill -9
    /// between a file's move and the record that names it then leaves a row by which the next run
    /// knows the file as its own (`adoptPlaced`), instead of a file it must leave to the user and
    /// fetch again. When the store cannot take them, none is moved: they fail as a failed record would.
    private func recordPlacements(_ placing: inout [(done: CompletedTransfer, file: FinishedFile)], report: (DownloadUpdate) -> Void) {
        let placements = placing.compactMap { done, file -> Placement? in
            guard let key = active[done.id]?.item.key, let stamp = FileIO.stamp(ofName: file.source) else { return nil }
            return Placement(key: key, device: stamp.device, inode: stamp.inode, bytes: file.bytes, sha256: file.sha256)
        }
        do {
            try store.placements.record(placements)
        } catch {
            for (done, _) in placing {
                perform(active[done.id]?.placingFailed("\(error)"), for: done.id, report: report)
            }
            placing = []
        }
    }

    /// Removes the file a re-fetched episode had under another name (the template or its values
    /// changed, or the user changed the old copy, which then stays), with its companions: the new
    /// copy replaces it, also in the podcast's playlists.
    private func removeReplaced(_ old: RecordedFile, of item: DownloadItem, report: (DownloadUpdate) -> Void) {
        let problems = LibraryDeletion(store: store).removeReplaced(old, of: item.key) + Playlist.refresh(feed: item.feed, store: store)
        for problem in problems { report(.warning(item, problem)) }
    }
}

extension DownloadRecord {
    /// The record of a download that ended well, its file at `path` as `file` says. `DownloadRecords.saveCompleted`
    /// writes exactly these fields.
    mutating func completed(by done: CompletedTransfer, at path: String, file: FinishedFile) {
        state = .downloaded
        self.path = path
        sha256 = file.sha256
        fileStamp = file.stamp
        resume.partialPath = nil
        error = nil
        effectiveURL = done.effectiveURL
        resume.etag = done.etag
        resume.lastModified = done.lastModified
        bytes = file.bytes
        resume.durableBytes = file.bytes
        resume.total = file.bytes
        failures = 0
        finalError = false
        speed = nil
    }
}
